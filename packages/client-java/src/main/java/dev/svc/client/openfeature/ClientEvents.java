package dev.svc.client.openfeature;

import dev.openfeature.sdk.Awaitable;
import dev.openfeature.sdk.ErrorCode;
import dev.openfeature.sdk.EventProvider;
import dev.openfeature.sdk.ProviderEventDetails;
import dev.svc.client.Change;
import dev.svc.client.ChangeSet;
import dev.svc.client.ServiceClient;
import dev.svc.client.ServiceStatus;
import dev.svc.client.ServiceUnauthorizedException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * A client's changes and status as a provider's events: changes are
 * {@code PROVIDER_CONFIGURATION_CHANGED} with the changed keys, the status {@code PROVIDER_READY},
 * {@code PROVIDER_STALE} or {@code PROVIDER_ERROR}. Emitted one at a time, in order, on a thread
 * of their own: the SDK's emitter runs each event on a thread pool, where a READY right after a
 * STALE could overtake it.
 */
final class ClientEvents implements AutoCloseable {
  private enum Health {
    READY,
    STALE,
    ERROR
  }

  private final EventProvider provider;
  private final ServiceClient client;
  private final ServiceClient.Subscription changes;
  private final ServiceClient.Subscription statuses;
  private final ExecutorService emitter =
      Executors.newSingleThreadExecutor(
          task -> {
            Thread thread = new Thread(task, "svc-openfeature-events");
            thread.setDaemon(true);
            return thread;
          });
  private final Object lock = new Object();
  /** Guarded by lock. The SDK makes a provider READY when its initialization returns. */
  private Health health = Health.READY;

  /** Follows {@code client} for {@code provider}, from its current status on. */
  ClientEvents(EventProvider provider, ServiceClient client) {
    this.provider = provider;
    this.client = client;
    this.changes = client.addChangeListener(this::changed);
    this.statuses = client.addStatusListener(status -> followStatus());
    followStatus();
  }

  /** Stops following; events not emitted yet still are. */
  @Override
  public void close() {
    changes.close();
    statuses.close();
    emitter.shutdown();
  }

  /** The keys of the changed configs and flags (never secrets), once each. */
  private void changed(ChangeSet changeSet) {
    List<String> keys =
        changeSet.changes().stream().filter(c -> !c.kind().equals("secret")).map(Change::key).distinct().toList();
    if (keys.isEmpty()) return;
    emit(() -> provider.emitProviderConfigurationChanged(ProviderEventDetails.builder().flagsChanged(keys).build()));
  }

  /**
   * The client's status as the provider's: an error with values in the cache is STALE (reads
   * still answer, perhaps out of date), a refused key is ERROR, anything else READY.
   */
  private void followStatus() {
    synchronized (lock) {
      // Read under the lock: whichever thread reports last leaves the latest status in force.
      ServiceStatus status = client.getStatus();
      RuntimeException error = status.error();
      Health next =
          error == null
              ? Health.READY
              : error instanceof ServiceUnauthorizedException || !status.ready() ? Health.ERROR : Health.STALE;
      if (next == health) return;
      health = next;
      ProviderEventDetails.ProviderEventDetailsBuilder<?, ?> details = ProviderEventDetails.builder();
      switch (next) {
        case READY -> emit(() -> provider.emitProviderReady(details.build()));
        case STALE -> emit(() -> provider.emitProviderStale(details.message(error.getMessage()).build()));
        case ERROR ->
            emit(() -> provider.emitProviderError(details.message(error.getMessage()).errorCode(ErrorCode.GENERAL).build()));
      }
    }
  }

  /** Emits once the events before it have reached their handlers. */
  private void emit(Supplier<Awaitable> event) {
    try {
      emitter.execute(
          () -> {
            try {
              event.get().await();
            } catch (RejectedExecutionException stopped) {
              // the SDK's emitter has stopped: the provider is shutting down
            }
          });
    } catch (RejectedExecutionException closed) {
      // no longer following
    }
  }
}
