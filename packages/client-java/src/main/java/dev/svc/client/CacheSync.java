package dev.svc.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Keeps the cache current: the conditional sync ({@code If-None-Match}) with the server's
 * quarantine, the syncs the stream's events ask for, and the time-to-live re-sync while no
 * stream is connected. Background syncs and the time-to-live run on the client's scheduler
 * thread. {@link ServiceClient#sync()} documents what a sync throws.
 */
final class CacheSync {
  private final LiveCache cache;
  private final Transport transport;
  private final StatusTracker status;
  private final ScheduledThreadPoolExecutor scheduler;
  private final ServiceLogger logger;
  private final Duration cacheTtl;
  /** A 401: the client decides what a refused key means (a workload identity exchanges again). */
  private final Runnable keyRefused;
  /** The client's. */
  private final BooleanSupplier closed;

  private final ReentrantLock syncLock = new ReentrantLock();
  private final Object ttlLock = new Object();

  private volatile Instant syncedAt = Instant.EPOCH;
  /** The time-to-live counts from here (nanoTime): the end of the last sync attempt or of the stream. */
  private volatile long freshAt = System.nanoTime();
  /** nanoTime until which the key is quarantined, or null. */
  private volatile Long quarantinedUntil;
  /** The stream asked for a sync that could not run yet. */
  private volatile boolean resyncPending;
  private volatile boolean streamConnected;

  /** Guarded by syncLock. */
  private String etag;
  /** Counts syncs started, so that callers that waited can share a sync started after their call. */
  private final AtomicLong syncsStarted = new AtomicLong();
  /** Guarded by syncLock: the number and failure of the last finished sync. */
  private long lastSyncFinished;
  private RuntimeException lastSyncError;
  /** Guarded by ttlLock. */
  private ScheduledFuture<?> ttlTask;

  CacheSync(
      LiveCache cache,
      Transport transport,
      StatusTracker status,
      ScheduledThreadPoolExecutor scheduler,
      ResolvedConfig config,
      Runnable keyRefused,
      BooleanSupplier closed) {
    this.cache = cache;
    this.transport = transport;
    this.status = status;
    this.scheduler = scheduler;
    this.logger = config.logger();
    this.cacheTtl = config.cacheTtl();
    this.keyRefused = keyRefused;
    this.closed = closed;
  }

  /** When the last sync succeeded (a 304 counts). */
  Instant syncedAt() {
    return syncedAt;
  }

  boolean streamConnected() {
    return streamConnected;
  }

  /** One sync, shared with callers that waited while another ran; see {@link ServiceClient#sync()}. */
  void sync() {
    if (closed.getAsBoolean()) throw new ServiceException("the client is closed");
    long seen = syncsStarted.get();
    try {
      syncLock.lockInterruptibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ServiceException("sync was interrupted", e);
    }
    boolean ran = false;
    RuntimeException failure = null;
    try {
      if (lastSyncFinished > seen) {
        // A sync that started after this call has finished meanwhile: its outcome is ours.
        if (lastSyncError != null) throw lastSyncError;
        return;
      }
      long number = syncsStarted.incrementAndGet();
      ran = true;
      try {
        fetchSnapshot();
        lastSyncError = null;
      } catch (RuntimeException e) {
        lastSyncError = e;
        failure = e;
        if (e instanceof ServiceUnauthorizedException) keyRefused.run();
        throw e;
      } finally {
        lastSyncFinished = number;
        freshAt = System.nanoTime();
      }
    } finally {
      syncLock.unlock();
      scheduleTtl();
      if (ran) syncEnded(failure);
    }
  }

  void onStreamEvents(List<SseEvent> events) {
    List<ItemChange> pending = new ArrayList<>();
    for (SseEvent event : events) {
      if (event.event().equals("change")) {
        try {
          pending.add(Snapshot.parseChange(event.data()));
        } catch (ServiceException e) {
          logger.error("stream: ignored a malformed change event", e);
        }
      } else if (event.event().equals("resync")) {
        cache.applyStreamChanges(pending);
        pending.clear();
        OptionalLong revision = revisionOf(event.data());
        if (revision.isEmpty() || revision.getAsLong() != cache.revision()) {
          backgroundSync("the stream asked for a resync");
        }
      }
    }
    cache.applyStreamChanges(pending);
  }

  void onStreamState(boolean connected) {
    streamConnected = connected;
    // The stream kept the cache current until now: the time-to-live starts here.
    if (!connected) freshAt = System.nanoTime();
    scheduleTtl();
    status.update(
        s -> connected
            ? new ServiceStatus(s.ready(), true, s.syncedAt(), null)
            : new ServiceStatus(s.ready(), false, s.syncedAt(), s.error()));
  }

  /** Syncs on the scheduler thread; a failure is logged and retried with the time-to-live. */
  void backgroundSync(String reason) {
    if (closed.getAsBoolean()) return;
    try {
      scheduler.execute(() -> runBackgroundSync(reason));
    } catch (RejectedExecutionException closing) {
      // the client is closing
    }
  }

  private void runBackgroundSync(String reason) {
    try {
      sync();
    } catch (RuntimeException e) {
      if (closed.getAsBoolean()) return;
      resyncPending = true;
      scheduleTtl();
      String message = "background sync (" + reason + ") failed: " + Transport.describe(e);
      if (e instanceof ServiceQuarantinedException) logger.info(message);
      else logger.error(message, e);
    }
  }

  /**
   * Plans the next background sync: a time-to-live after the cache was last known current while
   * no stream is connected, or a sync the stream asked for that had to wait (quarantine).
   */
  private void scheduleTtl() {
    synchronized (ttlLock) {
      cancelTtl();
      if (closed.getAsBoolean()) return;
      if (streamConnected && !resyncPending) return;
      long due = freshAt + cacheTtl.toNanos();
      Long until = quarantinedUntil;
      if (until != null && until - due > 0) due = until;
      long delay = Math.max(0, due - System.nanoTime());
      try {
        ttlTask =
            scheduler.schedule(
                () -> {
                  if (!syncLock.isLocked()) runBackgroundSync("cache time-to-live");
                },
                delay,
                TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException closing) {
        // the client is closing
      }
    }
  }

  /** At close (and before each new plan): no background sync is planned any more. */
  void cancelTtl() {
    synchronized (ttlLock) {
      if (ttlTask != null) ttlTask.cancel(false);
      ttlTask = null;
    }
  }

  /** At close, once the stream is stopped. */
  void streamStopped() {
    streamConnected = false;
  }

  private void fetchSnapshot() {
    Long until = quarantinedUntil;
    if (until != null) {
      long waitNanos = until - System.nanoTime();
      if (waitNanos > 0) {
        long seconds = (waitNanos + 999_999_999L) / 1_000_000_000L;
        throw new ServiceQuarantinedException(
            "sync: the key is quarantined for another " + seconds + " s",
            429,
            "sync_quarantined",
            Duration.ofSeconds(seconds));
      }
      quarantinedUntil = null;
    }
    long batchesBefore = cache.streamBatches();
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Accept", "application/json");
    if (etag != null) headers.put("If-None-Match", etag);
    HttpResponse<byte[]> response = transport.send("GET", "/v1/sync", headers, null);
    int httpStatus = response.statusCode();
    if (httpStatus == 304) {
      synced();
      logger.debug("sync: not modified (revision " + cache.revision() + ")");
      return;
    }
    if (httpStatus < 200 || httpStatus >= 300) {
      ServiceException error =
          Transport.errorOf(httpStatus, response.headers(), response.body(), Transport.Operation.SYNC);
      if (error instanceof ServiceQuarantinedException q) {
        quarantinedUntil = System.nanoTime() + q.getRetryAfter().toNanos();
        logger.info("sync quarantined by the server: no sync for " + q.getRetryAfter().toSeconds() + " s");
      }
      throw error;
    }
    Snapshot next = Snapshot.parse(Transport.json(response, "sync"));
    LiveCache.Swap swap = cache.offer(next, batchesBefore);
    if (!swap.taken()) {
      // The stream brought newer changes while this answer was on its way: keep them.
      synced();
      return;
    }
    etag = response.headers().firstValue("ETag").orElse(null);
    synced();
    logger.debug("sync: revision " + next.revision());
    cache.notifyChanged(swap.changed());
  }

  private void synced() {
    syncedAt = Instant.now();
    resyncPending = false;
  }

  /** A sync this client ran ended: the status follows (a success clears the last error). */
  private void syncEnded(RuntimeException failure) {
    Instant at = syncedAt;
    status.update(
        s -> failure == null
            ? new ServiceStatus(true, s.streamConnected(), at, null)
            : new ServiceStatus(s.ready(), s.streamConnected(), s.syncedAt(), failure));
  }

  private static OptionalLong revisionOf(String data) {
    try {
      JsonNode revision = Json.MAPPER.readTree(data).get("revision");
      return revision != null && revision.isIntegralNumber()
          ? OptionalLong.of(revision.longValue())
          : OptionalLong.empty();
    } catch (JsonProcessingException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }
}
