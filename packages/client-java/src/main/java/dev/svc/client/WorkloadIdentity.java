package dev.svc.client;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A workload identity: what a client takes instead of an API key to prove who it is with its
 * platform's token, exchanged for short-lived keys (contract, "Workload identity federation").
 * The identity's id and the method are required; every other setting overrides a default of its
 * method. {@link ServiceClient#create(ServiceConfig)} checks them before any request.
 *
 * <pre>{@code
 * ServiceConfig.builder()
 *     .baseUrl("https://acme.config.example.com")
 *     .identity(WorkloadIdentity.builder("6f1c...", IdentityMethod.KUBERNETES).build())
 *     .build();
 * }</pre>
 */
public final class WorkloadIdentity {
  /** Where Kubernetes projects the service account's token. */
  public static final Path KUBERNETES_TOKEN_FILE =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token");

  /** Kept apart from the public surface: the client reads it, users only build it. */
  private final IdentitySettings settings;

  private WorkloadIdentity(IdentitySettings settings) {
    this.settings = settings;
  }

  /**
   * @param identityId the identity's id, from the console or the management API
   * @param method how the workload proves who it is
   * @return a builder with every optional setting at its default
   */
  public static Builder builder(String identityId, IdentityMethod method) {
    return new Builder(identityId, method);
  }

  /** @return the identity's id */
  public String getIdentityId() {
    return settings.identityId();
  }

  /** @return the method */
  public IdentityMethod getMethod() {
    return settings.method();
  }

  /** The settings, unchecked: {@link ServiceClient#create} checks them. */
  IdentitySettings settings() {
    return settings;
  }

  /** Never shows a token or credentials. */
  @Override
  public String toString() {
    return settings.toString();
  }

  /** Builds a {@link WorkloadIdentity}; values are checked by {@link ServiceClient#create}. */
  public static final class Builder {
    private final String identityId;
    private final IdentityMethod method;
    private Path tokenFile;
    private Supplier<String> token;
    private String audience;
    private String metadataUrl;
    private String clientId;
    private String stsEndpoint;
    private String region;
    private String serverId;
    private Supplier<AwsCredentials> awsCredentials;
    private double refreshAt = 2.0 / 3;
    private Duration retryInitialDelay = Duration.ofSeconds(1);
    private Duration retryMaxDelay = Duration.ofSeconds(30);

    private Builder(String identityId, IdentityMethod method) {
      this.identityId = identityId;
      this.method = method;
    }

    /**
     * {@code kubernetes}: the projected service-account token (default
     * {@link #KUBERNETES_TOKEN_FILE}); {@code oidc}: a file holding the token. Read again at each
     * exchange: platforms rotate these files.
     *
     * @param tokenFile the file
     * @return this builder
     */
    public Builder tokenFile(Path tokenFile) {
      this.tokenFile = tokenFile;
      return this;
    }

    /**
     * {@code oidc}: gives the token at each exchange (instead of {@link #tokenFile}).
     *
     * @param token the supplier
     * @return this builder
     */
    public Builder token(Supplier<String> token) {
      this.token = token;
      return this;
    }

    /**
     * {@code gcp}, {@code azure}: the audience the token is asked for (the identity's
     * {@code audience}). Required by both.
     *
     * @param audience the audience
     * @return this builder
     */
    public Builder audience(String audience) {
      this.audience = audience;
      return this;
    }

    /**
     * {@code gcp}: the metadata server (default {@code http://metadata.google.internal});
     * {@code azure}: the instance metadata service (default {@code http://169.254.169.254}).
     *
     * @param metadataUrl an http(s) URL
     * @return this builder
     */
    public Builder metadataUrl(String metadataUrl) {
      this.metadataUrl = metadataUrl;
      return this;
    }

    /**
     * {@code azure}: the client id of a user-assigned managed identity (default: the system one).
     *
     * @param clientId the client id
     * @return this builder
     */
    public Builder clientId(String clientId) {
      this.clientId = clientId;
      return this;
    }

    /**
     * {@code aws}: the STS endpoint the request is signed for: the identity's
     * {@code sts_endpoint} (default {@code https://sts.amazonaws.com/}).
     *
     * @param stsEndpoint an http(s) URL
     * @return this builder
     */
    public Builder stsEndpoint(String stsEndpoint) {
      this.stsEndpoint = stsEndpoint;
      return this;
    }

    /**
     * {@code aws}: the signing region; default the endpoint's ({@code sts.{region}.amazonaws.com})
     * or {@code us-east-1}.
     *
     * @param region the region
     * @return this builder
     */
    public Builder region(String region) {
      this.region = region;
      return this;
    }

    /**
     * {@code aws}: the identity's {@code server_id}, sent (and signed) as {@code X-Svc-Server-Id}.
     *
     * @param serverId the server id
     * @return this builder
     */
    public Builder serverId(String serverId) {
      this.serverId = serverId;
      return this;
    }

    /**
     * {@code aws}: credentials instead of the AWS SDK's default chain (environment, system
     * properties, profile, SSO, web identity, container, instance metadata).
     *
     * @param credentials asked at each exchange
     * @return this builder
     */
    public Builder awsCredentials(Supplier<AwsCredentials> credentials) {
      this.awsCredentials = credentials;
      return this;
    }

    /**
     * When to exchange again, as a share of the key's life. Default 2/3.
     *
     * @param refreshAt between 0 and 1
     * @return this builder
     */
    public Builder refreshAt(double refreshAt) {
      this.refreshAt = refreshAt;
      return this;
    }

    /**
     * Delays between failed exchanges: doubling from {@code initial} to {@code max}, with jitter.
     * Default 1 s to 30 s.
     *
     * @param initial the first delay
     * @param max the largest delay
     * @return this builder
     */
    public Builder retry(Duration initial, Duration max) {
      this.retryInitialDelay = initial;
      this.retryMaxDelay = max;
      return this;
    }

    /** @return the identity */
    public WorkloadIdentity build() {
      return new WorkloadIdentity(
          new IdentitySettings(
              identityId, method, tokenFile, token, audience, metadataUrl, clientId, stsEndpoint,
              region, serverId, awsCredentials, refreshAt, retryInitialDelay, retryMaxDelay));
    }
  }
}
