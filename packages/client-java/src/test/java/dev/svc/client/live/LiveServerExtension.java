package dev.svc.client.live;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Hands a {@link LiveServer} to test methods and constructors: one per test run, started on first
 * use and stopped when the run ends. A server that failed to start fails every test that asks
 * for it (with the same error), instead of being started again.
 */
public final class LiveServerExtension implements ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(LiveServerExtension.class);

  /** Holds the server, or why it could not start; closed at the end of the run. */
  private static final class Holder implements ExtensionContext.Store.CloseableResource {
    private final LiveServer server;
    private final Exception failure;

    Holder() {
      LiveServer started = null;
      Exception error = null;
      try {
        started = LiveServer.start();
      } catch (Exception e) {
        error = e;
      }
      this.server = started;
      this.failure = error;
    }

    @Override
    public void close() {
      if (server != null) server.close();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == LiveServer.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Holder holder =
        context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Holder.class, k -> new Holder(), Holder.class);
    if (holder.failure != null) {
      throw new IllegalStateException("the live api could not be started: " + holder.failure.getMessage(), holder.failure);
    }
    return holder.server;
  }
}
