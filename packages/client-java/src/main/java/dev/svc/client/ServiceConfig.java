package dev.svc.client;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of a {@link ServiceClient}: build one with {@link #builder()}. Required: {@code baseUrl},
 * and {@code apiKey} or {@code identity}; {@link ServiceClient#create(ServiceConfig)} checks every
 * value before any request and throws {@link IllegalArgumentException} naming the first problem.
 *
 * <pre>{@code
 * ServiceConfig config = ServiceConfig.builder()
 *     .baseUrl("https://acme.config.example.com") // or http://localhost:8080/acme (path form)
 *     .apiKey(System.getenv("SERVICE_API_KEY"))    // svs_... (backend) or svp_... (public)
 *     .build();
 * }</pre>
 */
public final class ServiceConfig {
  /** Default of {@link Builder#cacheTtl}. */
  public static final Duration DEFAULT_CACHE_TTL = Duration.ofSeconds(60);
  /** Default of {@link Builder#requestTimeout}. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

  private final String baseUrl;
  private final String apiKey;
  private final boolean stream;
  private final Duration cacheTtl;
  private final Duration requestTimeout;
  private final ServiceLogger logger;
  private final Path secretFilesDir;
  private final Duration reconnectInitialDelay;
  private final Duration reconnectMaxDelay;
  private final Duration reconnectResetAfter;
  private final Duration streamSilenceTimeout;
  private final WorkloadIdentity identity;

  private ServiceConfig(Builder b) {
    this.baseUrl = b.baseUrl;
    this.apiKey = b.apiKey;
    this.stream = b.stream;
    this.cacheTtl = b.cacheTtl;
    this.requestTimeout = b.requestTimeout;
    this.logger = b.logger;
    this.secretFilesDir = b.secretFilesDir;
    this.reconnectInitialDelay = b.reconnectInitialDelay;
    this.reconnectMaxDelay = b.reconnectMaxDelay;
    this.reconnectResetAfter = b.reconnectResetAfter;
    this.streamSilenceTimeout = b.streamSilenceTimeout;
    this.identity = b.identity;
  }

  /**
   * @return a builder with every optional setting at its default
   */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the workspace's address, as given */
  public String getBaseUrl() {
    return baseUrl;
  }

  /** @return the API key, as given */
  public String getApiKey() {
    return apiKey;
  }

  /** @return whether {@code create()} starts the change stream */
  public boolean isStream() {
    return stream;
  }

  /** @return the cache's time-to-live */
  public Duration getCacheTtl() {
    return cacheTtl;
  }

  /** @return the time limit of each sync, evaluateAB and write request */
  public Duration getRequestTimeout() {
    return requestTimeout;
  }

  /** @return the logger, or null for the default one */
  public ServiceLogger getLogger() {
    return logger;
  }

  /** @return the parent of the client's private folder for file secrets, or null for the temp folder */
  public Path getSecretFilesDir() {
    return secretFilesDir;
  }

  /** @return the first delay after a failed or lost stream connection */
  public Duration getReconnectInitialDelay() {
    return reconnectInitialDelay;
  }

  /** @return the longest delay between stream reconnection attempts */
  public Duration getReconnectMaxDelay() {
    return reconnectMaxDelay;
  }

  /** @return how long a stream connection must last for the delays to start over */
  public Duration getReconnectResetAfter() {
    return reconnectResetAfter;
  }

  /** @return how long a silent stream counts as alive */
  public Duration getStreamSilenceTimeout() {
    return streamSilenceTimeout;
  }

  /** @return the workload identity used instead of an API key, or null */
  public WorkloadIdentity getIdentity() {
    return identity;
  }

  /** Never shows the API key. */
  @Override
  public String toString() {
    return "ServiceConfig{baseUrl=" + baseUrl + ", stream=" + stream + ", cacheTtl=" + cacheTtl + "}";
  }

  /** Builds a {@link ServiceConfig}. Values are checked by {@link ServiceClient#create}. */
  public static final class Builder {
    private String baseUrl;
    private String apiKey;
    private boolean stream = true;
    private Duration cacheTtl = DEFAULT_CACHE_TTL;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private ServiceLogger logger;
    private Path secretFilesDir;
    private Duration reconnectInitialDelay = Duration.ofSeconds(1);
    private Duration reconnectMaxDelay = Duration.ofSeconds(30);
    private Duration reconnectResetAfter = Duration.ofSeconds(60);
    private Duration streamSilenceTimeout = Duration.ofSeconds(45);
    private WorkloadIdentity identity;

    private Builder() {}

    /**
     * The workspace's address: {@code https://{slug}.{domain}} (host form) or
     * {@code http://{host}/{slug}} (path form); an http or https URL without credentials, query
     * or fragment. A trailing {@code /} is ignored. Required.
     *
     * @param baseUrl the address
     * @return this builder
     */
    public Builder baseUrl(String baseUrl) {
      this.baseUrl = baseUrl;
      return this;
    }

    /**
     * A secret key ({@code svs_...}, backend services) or a public key ({@code svp_...}); its
     * shape and checksum are checked locally. Required.
     *
     * @param apiKey the key
     * @return this builder
     */
    public Builder apiKey(String apiKey) {
      this.apiKey = apiKey;
      return this;
    }

    /**
     * Instead of {@link #apiKey}: a workload identity whose platform token the client exchanges
     * for short-lived keys, at {@code create()} and again before each key expires.
     *
     * @param identity the identity
     * @return this builder
     */
    public Builder identity(WorkloadIdentity identity) {
      this.identity = identity;
      return this;
    }

    /**
     * Whether {@code create()} starts the change stream. Default true.
     *
     * @param stream false to read from syncs only
     * @return this builder
     */
    public Builder stream(boolean stream) {
      this.stream = stream;
      return this;
    }

    /**
     * The cache's time-to-live: while no stream is connected, the client re-syncs in the
     * background this long after the last sync. Default 60 s.
     *
     * @param cacheTtl a positive duration
     * @return this builder
     */
    public Builder cacheTtl(Duration cacheTtl) {
      this.cacheTtl = cacheTtl;
      return this;
    }

    /**
     * Time limit of each sync, evaluateAB and write request. Default 10 s.
     *
     * @param requestTimeout a positive duration
     * @return this builder
     */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = requestTimeout;
      return this;
    }

    /**
     * Where the client logs. Default: {@link ServiceLogger#defaultLogger()}.
     *
     * @param logger the logger
     * @return this builder
     */
    public Builder logger(ServiceLogger logger) {
      this.logger = logger;
      return this;
    }

    /**
     * The folder under which the client creates its private folder for file secrets. Default:
     * the system's temp folder ({@code java.io.tmpdir}).
     *
     * @param secretFilesDir an existing folder
     * @return this builder
     */
    public Builder secretFilesDir(Path secretFilesDir) {
      this.secretFilesDir = secretFilesDir;
      return this;
    }

    /**
     * First delay after a failed or lost stream connection; it doubles on each failure, with
     * jitter. Default 1 s.
     *
     * @param delay a positive duration
     * @return this builder
     */
    public Builder reconnectInitialDelay(Duration delay) {
      this.reconnectInitialDelay = delay;
      return this;
    }

    /**
     * The doubling reconnection delay stops growing here. Default 30 s.
     *
     * @param delay a positive duration
     * @return this builder
     */
    public Builder reconnectMaxDelay(Duration delay) {
      this.reconnectMaxDelay = delay;
      return this;
    }

    /**
     * A stream connection that lasted this long resets the delay to the initial one. Default 60 s.
     *
     * @param after a positive duration
     * @return this builder
     */
    public Builder reconnectResetAfter(Duration after) {
      this.reconnectResetAfter = after;
      return this;
    }

    /**
     * No byte for this long on the stream (the server sends a keep-alive every 15 s) counts as a
     * dead connection. Default 45 s.
     *
     * @param timeout a positive duration
     * @return this builder
     */
    public Builder streamSilenceTimeout(Duration timeout) {
      this.streamSilenceTimeout = timeout;
      return this;
    }

    /**
     * @return the configuration
     */
    public ServiceConfig build() {
      return new ServiceConfig(this);
    }
  }
}
