package dev.svc.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Consumer;

/**
 * The service's client: configs, flags and secrets of one API key's view, read from an in-memory
 * cache that a sync fills and the change stream keeps current; AB evaluation and the secret write
 * API over the network.
 *
 * <p>Create one per application with {@link #create(ServiceConfig)}, read from it on any thread
 * (reads never touch the network), and {@link #close()} it at shutdown (or use
 * try-with-resources). With Spring Boot, the auto-configuration does both.
 *
 * <pre>{@code
 * try (ServiceClient client = ServiceClient.create(ServiceConfig.builder()
 *     .baseUrl("https://acme.config.example.com")
 *     .apiKey(System.getenv("SERVICE_API_KEY"))
 *     .build())) {
 *   if (client.getFlag("checkout.v2")) { ... }
 *   Optional<Pool> pool = client.getConfigAs("db.pool", Pool.class);
 * }
 * }</pre>
 *
 * <p>Thread-safe. The cache is an immutable snapshot replaced atomically, so a reader never sees
 * half of an update.
 */
public final class ServiceClient implements AutoCloseable {
  /**
   * A listener's registration: {@link #close()} removes the listener (idempotent). Usable in
   * try-with-resources without a checked exception.
   */
  @FunctionalInterface
  public interface Subscription extends AutoCloseable {
    /** Removes the listener. */
    @Override
    void close();
  }

  /** Its key and key type change with each new key of a workload identity. */
  private volatile ResolvedConfig config;
  /** A workload identity's, or null with an API key. */
  private final KeyRefresher refresher;
  /** Whether the stream should run: it restarts under each new key of a workload identity. */
  private volatile boolean streamWanted;
  private final ServiceLogger logger;
  private final Transport transport;
  private final LiveCache cache;
  private final StreamConnection stream;
  private final ScheduledThreadPoolExecutor scheduler;
  private final StatusTracker status;
  private final CacheSync sync;
  private final RemoteCalls remote;

  private final Object closeLock = new Object();
  private volatile boolean closed;

  private ServiceClient(ResolvedConfig config, KeyRefresher refresher) {
    this.config = config;
    this.refresher = refresher;
    this.logger = config.logger();
    this.transport = new Transport(config.baseUrl(), config.apiKey(), config.requestTimeout());
    this.cache = new LiveCache(new FileSecrets(config.secretFilesDir(), logger), logger, () -> closed);
    this.status = new StatusTracker(logger);
    this.scheduler = daemonScheduler("service-client-scheduler");
    this.sync = new CacheSync(cache, transport, status, scheduler, config, this::keyRefused, () -> closed);
    this.remote = new RemoteCalls(transport, logger, this::isPublicKey);
    this.stream =
        new StreamConnection(
            transport,
            config,
            new StreamConnection.Handlers() {
              @Override
              public OptionalLong resumeAfter() {
                long revision = cache.revision();
                return revision >= 0 ? OptionalLong.of(revision) : OptionalLong.empty();
              }

              @Override
              public void onEvents(List<SseEvent> events) {
                sync.onStreamEvents(events);
              }

              @Override
              public void onState(boolean connected) {
                sync.onStreamState(connected);
              }

              @Override
              public void onRefused() {
                keyRefused();
              }

              @Override
              public void onError(RuntimeException error) {
                status.update(s -> new ServiceStatus(s.ready(), s.streamConnected(), s.syncedAt(), error));
              }
            });
  }

  /**
   * Checks {@code config}, exchanges the workload identity's token for a key (with
   * {@code identity}), runs the initial sync (blocking), and unless the config says
   * {@code stream(false)} starts the change stream without waiting for it. A workload identity's
   * key is then refreshed in the background before it expires.
   *
   * @param config the settings
   * @return a client whose cache holds the key's view
   * @throws IllegalArgumentException before any request, when {@code baseUrl}, or {@code apiKey}
   *     or {@code identity}, is missing or invalid (including a key whose checksum is wrong), or
   *     another setting is not valid
   * @throws ServiceInitException when the exchange or the initial sync fails;
   *     {@link ServiceInitException#getCause()} is the reason ({@link ServiceUnauthorizedException}
   *     — for an exchange, naming the failed check — {@link ServiceNotFoundException},
   *     {@link ServiceQuarantinedException}, {@link ServiceRateLimitedException} for too many
   *     exchanges, or a {@link ServiceException} for network failures and unreadable tokens)
   */
  public static ServiceClient create(ServiceConfig config) {
    ResolvedConfig resolved = ResolvedConfig.of(config);
    KeyRefresher refresher = null;
    IdentityExchange.MintedKey key = null;
    if (resolved.identity() != null) {
      refresher =
          new KeyRefresher(resolved.identity(), resolved.baseUrl(), resolved.requestTimeout(), resolved.logger());
      try {
        key = refresher.exchange();
      } catch (RuntimeException e) {
        refresher.stop();
        throw new ServiceInitException(e);
      }
      resolved = resolved.withKey(key.key(), key.keyType());
    }
    ServiceClient client = new ServiceClient(resolved, refresher);
    if (refresher != null) refresher.start(key, client::useKey);
    try {
      client.sync();
    } catch (RuntimeException e) {
      client.close();
      throw new ServiceInitException(e);
    }
    if (client.config.stream()) client.connectStream();
    return client;
  }

  // ---- reads (from the cache) ----

  /**
   * A config's value. A config whose value is JSON null is present, as a {@code NullNode}.
   *
   * @param key the config's key
   * @return a copy of the value, or empty when the key is absent
   */
  public Optional<JsonNode> getConfig(String key) {
    Objects.requireNonNull(key, "key");
    return cache.config(key);
  }

  /**
   * A config's value converted to {@code type} with Jackson's tree-to-value conversion (records,
   * beans, {@code String}, {@code Integer}, {@code Map}, ...). Unknown properties are ignored;
   * a value of the wrong kind (a string for a number, a fraction for an int, null for a
   * primitive) is not coerced.
   *
   * @param key the config's key
   * @param type the target type
   * @param <T> the target type
   * @return the converted value, or empty when the key is absent (or its value converts to null)
   * @throws IllegalArgumentException when the value does not fit {@code type}
   */
  public <T> Optional<T> getConfigAs(String key, Class<T> type) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(type, "type");
    return cache.configAs(key, type);
  }

  /**
   * Every config of the cache. Public-key clients see only configs with {@code is_public} true.
   *
   * @return a new map (key to a copy of the value)
   */
  public Map<String, JsonNode> getAllConfigs() {
    return cache.allConfigs();
  }

  /**
   * A flag's {@code is_active}.
   *
   * @param key the flag's key
   * @return is_active, or false when the flag is absent
   */
  public boolean getFlag(String key) {
    return getFlag(key, false);
  }

  /**
   * A flag's {@code is_active}, or {@code defaultValue} when the flag is absent.
   *
   * @param key the flag's key
   * @param defaultValue the answer for an absent flag
   * @return is_active or the default
   */
  public boolean getFlag(String key, boolean defaultValue) {
    Objects.requireNonNull(key, "key");
    return cache.flag(key, defaultValue);
  }

  /**
   * Every flag of the cache.
   *
   * @return a new map of key to is_active
   */
  public Map<String, Boolean> getAllFlags() {
    return cache.allFlags();
  }

  /**
   * A secret's plaintext (for a file secret: the file's content).
   *
   * @param key the secret's key
   * @return the plaintext
   * @throws ServicePublicKeyException when this client holds a public key
   * @throws ServiceSecretNotFoundException when the secret is not in the cache
   */
  public String getSecret(String key) {
    Objects.requireNonNull(key, "key");
    if (isPublicKey()) throw new ServicePublicKeyException("getSecret");
    return cache.secret(key);
  }

  /**
   * The absolute path of the file written for a file secret: mode 0600, in a private folder
   * (0700) that {@link #close()} removes. A rotated secret is rewritten in place (atomically).
   *
   * @param key the secret's key
   * @return the path, or empty for an unknown key, a text secret, a public key, or a closed client
   */
  public Optional<String> getSecretFilePath(String key) {
    Objects.requireNonNull(key, "key");
    return cache.secretFilePath(key);
  }

  /**
   * The key type, from the configured key.
   *
   * @return {@code sk} for a secret key, {@code pk} for a public key
   */
  public String getKeyType() {
    return config.keyType();
  }

  /**
   * When the last sync succeeded (a 304 counts: the cache was confirmed current).
   *
   * @return the instant of the last successful sync
   */
  public Instant getSyncedAt() {
    return sync.syncedAt();
  }

  /**
   * @return true while the change stream is connected
   */
  public boolean isStreamConnected() {
    return sync.streamConnected() && !closed;
  }

  /**
   * The client's status: ready, stream connected, last sync, last failure.
   *
   * @return the same object until something in it changes
   */
  public ServiceStatus getStatus() {
    return status.current();
  }

  /**
   * Calls {@code listener} after each change of the cache: a sync that brought something new,
   * or changes from the stream. It runs on the thread that made the change (the stream's, the
   * background sync's, or the one that called {@link #sync()}), after the cache holds the new
   * values; keep it short. What it throws is logged and otherwise ignored.
   *
   * @param listener called with what changed
   * @return the registration; closing it removes the listener
   */
  public Subscription addChangeListener(Consumer<? super ChangeSet> listener) {
    return cache.addChangeListener(listener);
  }

  /**
   * Calls {@code listener} after each change of {@link #getStatus()}, with the new status, on
   * the thread that changed it. What it throws is logged and otherwise ignored.
   *
   * @param listener called with the new status
   * @return the registration; closing it removes the listener
   */
  public Subscription addStatusListener(Consumer<? super ServiceStatus> listener) {
    return status.addListener(listener);
  }

  // ---- network ----

  /**
   * Syncs now, whatever the time-to-live says: a conditional {@code GET /v1/sync}
   * ({@code If-None-Match}); a new snapshot replaces the cache atomically, a 304 restarts the
   * time-to-live. Callers that wait while a sync runs share the next one. The cache is kept
   * when the sync fails.
   *
   * @throws ServiceQuarantinedException when the key is quarantined (at once, without a request,
   *     until the server's {@code Retry-After} has passed)
   * @throws ServiceUnauthorizedException on 401
   * @throws ServiceNotFoundException on 404
   * @throws ServiceException for network or protocol failures, or a closed client
   */
  public void sync() {
    sync.sync();
  }

  /**
   * Evaluates flags for one user with AB Testing semantics ({@code POST /v1/flags/evaluate-ab}),
   * always over the network. Every requested key is in the answer; unknown or inactive flags are
   * false.
   *
   * @param keys 1 to 100 flag keys
   * @param userId the user's id (1 to 256 characters): the rollout bucket is sticky per user
   * @param attributes targeting attributes (up to 50), such as {@code country}; null for none
   * @return the server's results: flag key to boolean
   * @throws ServiceAbAddonNotAvailableException on 403 (the project's AB Testing add-on is off)
   * @throws ServiceBillingException on 402
   * @throws ServiceUnauthorizedException on 401
   * @throws ServiceException for anything else ({@code invalid_request}, network, closed client)
   */
  public Map<String, Boolean> evaluateAB(List<String> keys, String userId, Map<String, Object> attributes) {
    return remote.evaluateAB(keys, userId, attributes);
  }

  /**
   * Creates or updates a secret (type text) with a new version, in the key's service scope when
   * the key is bound to a service, else at project level. The cache sees it through the stream
   * within milliseconds, or at the next {@link #sync()}.
   *
   * @param key the secret's key
   * @param value the plaintext
   * @throws ServicePublicKeyException at once, without a request, for a public key
   * @throws ServiceRateLimitedException on 429 (with {@code getRetryAfter()})
   * @throws ServiceBillingException on 402
   * @throws ServiceUnauthorizedException on 401
   * @throws ServiceException for anything else ({@code invalid_request}, network, closed client)
   */
  public void setSecret(String key, String value) {
    remote.writeSecret("setSecret", key, value, null);
  }

  /**
   * {@link #setSecret(String, String)}, only if the secret's current version is
   * {@code expectedVersion} (0: only if it does not exist yet).
   *
   * @param key the secret's key
   * @param value the plaintext
   * @param expectedVersion the version the secret must have now; 0 for "must not exist"
   * @throws ServiceException with code {@code version_conflict} when the version differs; else
   *     as {@link #setSecret(String, String)}
   */
  public void setSecret(String key, String value, int expectedVersion) {
    if (expectedVersion < 0) throw new IllegalArgumentException("expectedVersion must not be negative");
    remote.writeSecret("setSecret", key, value, expectedVersion);
  }

  /**
   * Deletes a secret and all its versions.
   *
   * @param key the secret's key
   * @throws ServicePublicKeyException at once, without a request, for a public key
   * @throws ServiceNotFoundException with code {@code secret_not_found} when it does not exist;
   *     otherwise as {@link #setSecret(String, String)}
   */
  public void deleteSecret(String key) {
    remote.deleteSecret(key);
  }

  /**
   * Deletes one version of a secret; deleting the last remaining version deletes the secret.
   *
   * @param key the secret's key
   * @param version the version's number (from 1)
   * @throws ServicePublicKeyException at once, without a request, for a public key
   * @throws ServiceNotFoundException with code {@code version_not_found} when that version does
   *     not exist; otherwise as {@link #setSecret(String, String)}
   */
  public void deleteSecretVersion(String key, int version) {
    remote.deleteSecretVersion(key, version);
  }

  /**
   * Starts the change stream thread (idempotent). While it is connected, changes reach the cache
   * within milliseconds and the time-to-live re-sync pauses. It reconnects by itself with backoff
   * and jitter, resuming with {@code Last-Event-ID}; a 401 or 404 stops it until the next call.
   *
   * @throws ServiceException when the client is closed
   */
  public void connectStream() {
    if (closed) throw new ServiceException("the client is closed");
    streamWanted = true;
    stream.start();
  }

  /** Stops the change stream thread (idempotent); returns once the connection is closed. */
  public void disconnectStream() {
    streamWanted = false;
    stream.stop();
  }

  /**
   * Stops the stream thread and the background re-sync, ends requests in flight, removes the
   * files of file secrets, and releases the HTTP client. Idempotent. Reads keep answering from
   * the last cache; network calls fail with a {@link ServiceException}.
   */
  @Override
  public void close() {
    synchronized (closeLock) {
      if (closed) return;
      closed = true;
    }
    sync.cancelTtl();
    if (refresher != null) refresher.stop();
    stream.stop();
    sync.streamStopped();
    transport.close();
    scheduler.shutdown();
    cache.close();
    status.clearListeners();
    logger.debug("closed");
  }

  // ---- internals ----

  /**
   * A 401: a workload identity's key expired before a refresh succeeded, or was revoked. No
   * reason to stop: exchange again.
   */
  private void keyRefused() {
    if (refresher != null) refresher.keyRefused();
  }

  /**
   * A workload identity's new key: requests use it from now on, and the stream reconnects under
   * it at once, resuming after the cache's revision ({@code Last-Event-ID}) so no change is
   * missed. After a refused key, a client without a stream syncs. Runs on the refresher's thread.
   */
  private void useKey(IdentityExchange.MintedKey key, boolean refused) {
    transport.rekey(key.key());
    config = config.withKey(key.key(), key.keyType());
    if (closed) return;
    if (!streamWanted) {
      if (refused) sync.backgroundSync("a new key after a refused one");
      return;
    }
    stream.stop();
    if (streamWanted && !closed) stream.start();
  }

  /** One daemon thread named {@code name} for planned tasks; what is planned dies with shutdown. */
  static ScheduledThreadPoolExecutor daemonScheduler(String name) {
    ScheduledThreadPoolExecutor scheduler =
        new ScheduledThreadPoolExecutor(
            1,
            task -> {
              Thread thread = new Thread(task, name);
              thread.setDaemon(true);
              return thread;
            });
    scheduler.setRemoveOnCancelPolicy(true);
    scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    return scheduler;
  }

  private boolean isPublicKey() {
    return ApiKeys.PUBLIC.equals(config.keyType());
  }

  /** Kept under this name for the tests that check it. */
  static String pathSegment(String value) {
    return RemoteCalls.pathSegment(value);
  }
}
