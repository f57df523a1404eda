package dev.svc.client;

import java.util.List;
import java.util.OptionalLong;

/**
 * The change stream: {@code GET /v1/stream} on a thread of its own, so the client sets its own
 * headers ({@code Last-Event-ID}) and notices silence itself. It reconnects with backoff until
 * stopped; a 401 or 404 stops it for good (until the next {@link #start()}).
 *
 * <p>The stream thread only ever waits on its {@link StreamRun}'s inbox: the HTTP client posts the
 * answer's head, each body chunk and the body's end there, and {@link #stop()} posts a stop. So
 * stopping needs no thread interrupt (which would break file writes in progress), and silence is
 * a poll that times out. Each connection is a {@link StreamAttempt}.
 */
final class StreamConnection {
  /** What the stream reports to the client. Called on the stream thread. */
  interface Handlers {
    /** The revision to resume after (sent as {@code Last-Event-ID}), or empty. */
    OptionalLong resumeAfter();

    /** The events of one received chunk, in order. */
    void onEvents(List<SseEvent> events);

    /** The stream became connected (true) or stopped being connected (false). */
    void onState(boolean connected);

    /** The key was refused (401): the stream stopped. */
    default void onRefused() {}

    /** A connection failed or was refused (then {@link #onRefused()} follows a 401). */
    default void onError(RuntimeException error) {}
  }

  private static final long JOIN_TIMEOUT_MS = 10_000;

  private final ResolvedConfig config;
  private final Handlers handlers;
  private final StreamAttempt attempt;
  private final Object lock = new Object();
  private StreamRun run;

  StreamConnection(Transport transport, ResolvedConfig config, Handlers handlers) {
    this.config = config;
    this.handlers = handlers;
    this.attempt = new StreamAttempt(transport, config, handlers, this::isCurrent);
  }

  /** Starts the connect loop; does nothing when it runs already. */
  void start() {
    synchronized (lock) {
      if (run != null && run.active) return;
      StreamRun next = new StreamRun();
      next.thread = new Thread(() -> loop(next), "service-client-stream");
      next.thread.setDaemon(true);
      run = next;
      next.thread.start();
    }
  }

  /** Ends the connection and the loop; returns once the stream thread has finished. */
  void stop() {
    StreamRun current;
    synchronized (lock) {
      current = run;
      if (current == null) return;
      current.active = false;
      current.inbox.offer(StreamRun.STOP);
      StreamHttpConnection connection = current.connection;
      if (connection != null) connection.cancel();
    }
    if (current.thread != Thread.currentThread()) {
      try {
        current.thread.join(JOIN_TIMEOUT_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A run that was stopped (or replaced by a restart) reports nothing more. */
  private boolean isCurrent(StreamRun r) {
    synchronized (lock) {
      return run == r;
    }
  }

  private void loop(StreamRun r) {
    ServiceLogger logger = config.logger();
    // Each run starts with the initial delay again.
    Backoff backoff =
        new Backoff(config.reconnectInitialDelay(), config.reconnectMaxDelay(), config.reconnectResetAfter());
    while (r.active) {
      long delay;
      try {
        StreamAttempt.Outcome outcome = attempt.connectOnce(r, backoff);
        if (outcome == StreamAttempt.Outcome.STOPPED) break;
        if (outcome == StreamAttempt.Outcome.FATAL) {
          r.active = false;
          break;
        }
        delay = outcome == StreamAttempt.Outcome.ENDED_LONG ? 0 : backoff.nextMs();
        if (r.active) logger.info("stream ended by the server; reconnecting in " + delay + " ms");
      } catch (RuntimeException e) {
        if (!r.active) break;
        delay = backoff.nextMs();
        logger.error("stream failed, reconnecting in " + delay + " ms: " + Transport.describe(e), e);
        if (isCurrent(r)) handlers.onError(e);
      }
      if (r.active && delay > 0 && r.await(null, delay) == StreamRun.STOP) break;
    }
  }
}
