package dev.svc.client;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Keeps a workload identity's key fresh: exchanges again at {@code refreshAt} (2/3) of each
 * key's life, and sooner when the api refused the key (it expired before a refresh succeeded,
 * or the identity changed). A failed exchange is retried with backoff — after a 429 not before
 * its {@code Retry-After} — for as long as the client lives: meanwhile the client serves from
 * its cache. The exchanges run on a daemon thread of their own, so a slow one never holds up
 * the client's background syncs.
 */
final class KeyRefresher {
  /** No refresh sooner than this after a key: a server's tiny {@code expires_in} is no busy loop. */
  private static final long MIN_DELAY_MS = 100;

  private final IdentitySettings identity;
  private final String baseUrl;
  private final ServiceLogger logger;
  private final IdentityHttp http;
  private final CredentialSource source;
  private final Backoff backoff;
  private final ScheduledThreadPoolExecutor scheduler;
  private final Object lock = new Object();
  /** Called with each new key, and whether the api had refused the one before. */
  private BiConsumer<IdentityExchange.MintedKey, Boolean> listener;
  private ScheduledFuture<?> planned;
  private boolean running;
  /** The api refused the current key: the next key is wanted at once. */
  private boolean refused;
  /** The last exchange failed; the next attempt is planned. */
  private boolean retrying;
  private volatile boolean stopped;

  KeyRefresher(IdentitySettings identity, String baseUrl, Duration requestTimeout, ServiceLogger logger) {
    this.identity = identity;
    this.baseUrl = baseUrl;
    this.logger = logger;
    this.http = new IdentityHttp(requestTimeout);
    this.source = TokenSources.of(identity, http);
    this.backoff =
        new Backoff(identity.retryInitialDelay(), identity.retryMaxDelay(), Duration.ofMillis(Long.MAX_VALUE));
    this.scheduler = ServiceClient.daemonScheduler("service-client-identity");
  }

  /** One exchange: the platform's proof for a key. Throws as {@link IdentityExchange#exchange}. */
  IdentityExchange.MintedKey exchange() {
    return IdentityExchange.exchange(http, baseUrl, identity.identityId(), source.get());
  }

  /** Starts refreshing {@code key} (the one {@link #exchange} gave), telling {@code listener}. */
  void start(IdentityExchange.MintedKey key, BiConsumer<IdentityExchange.MintedKey, Boolean> listener) {
    synchronized (lock) {
      this.listener = listener;
      plan((long) (key.lifetime().toMillis() * identity.refreshAt()));
    }
  }

  /** The api answered 401 to the current key: exchange soon, unless that is under way. */
  void keyRefused() {
    synchronized (lock) {
      boolean alreadyPlanned = refused || retrying || running;
      refused = true;
      if (stopped || alreadyPlanned) return;
      long delay = backoff.nextMs();
      logger.info("identity: the key was refused; exchanging again in " + delay + " ms");
      plan(delay);
    }
  }

  /** Stops the thread; an exchange in flight ends with its time limit. */
  void stop() {
    stopped = true;
    scheduler.shutdownNow();
    source.close();
  }

  /** Holding the lock. */
  private void plan(long delayMs) {
    if (planned != null) planned.cancel(false);
    if (stopped) return;
    try {
      planned = scheduler.schedule(this::refresh, Math.max(0, delayMs), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopping) {
      // the client is closing
    }
  }

  private void refresh() {
    synchronized (lock) {
      running = true;
    }
    IdentityExchange.MintedKey key;
    try {
      key = exchange();
    } catch (RuntimeException e) {
      long delay;
      synchronized (lock) {
        running = false;
        if (stopped) return;
        retrying = true;
        delay = backoff.nextMs();
        if (e instanceof ServiceRateLimitedException limited) {
          delay = Math.max(delay, limited.getRetryAfter().toMillis());
        }
        plan(delay);
      }
      logger.error("identity: exchange failed, retrying in " + delay + " ms: " + Transport.describe(e), e);
      return;
    }
    boolean wasRefused;
    synchronized (lock) {
      wasRefused = refused;
      refused = false;
      retrying = false;
      // A scheduled refresh that worked starts the delays over; one after a refusal does not,
      // so a key the api keeps refusing cannot make the client exchange in a tight loop.
      if (!wasRefused) backoff.reset();
    }
    logger.info("identity: new key, valid for " + key.lifetime().toSeconds() + " s");
    try {
      if (listener != null && !stopped) listener.accept(key, wasRefused);
    } finally {
      synchronized (lock) {
        running = false;
        // Refused meanwhile: this key too, or a request made with the last one.
        if (refused) plan(backoff.nextMs());
        else plan(Math.max(MIN_DELAY_MS, (long) (key.lifetime().toMillis() * identity.refreshAt())));
      }
    }
  }
}
