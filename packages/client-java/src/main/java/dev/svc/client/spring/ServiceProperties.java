package dev.svc.client.spring;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the auto-configured {@link dev.svc.client.ServiceClient}, under the prefix
 * {@code service}:
 *
 * <pre>
 * service.base-url=https://acme.config.example.com
 * service.api-key=${SERVICE_API_KEY}
 * service.stream=true          # default
 * service.cache-ttl=60s        # default
 * </pre>
 *
 * <p>Or, instead of {@code service.api-key}, a workload identity:
 *
 * <pre>
 * service.identity.id=6f1c...
 * service.identity.method=kubernetes   # aws, gcp, azure, oidc
 * </pre>
 */
@ConfigurationProperties(prefix = "service")
public class ServiceProperties {
  /** Whether to create the ServiceClient bean at all. */
  private boolean enabled = true;

  /** The workspace's address: https://{slug}.{domain} or http://{host}/{slug}. */
  private String baseUrl;

  /** A secret key (svs_...) or public key (svp_...). */
  private String apiKey;

  /** Whether to start the change stream once the initial sync is done. */
  private boolean stream = true;

  /** The cache's time-to-live: without a stream, the client re-syncs this long after a sync. */
  private Duration cacheTtl = Duration.ofSeconds(60);

  /** Time limit of each sync, evaluateAB and write request. */
  private Duration requestTimeout = Duration.ofSeconds(10);

  /** A workload identity instead of an API key. */
  private final Identity identity = new Identity();

  /** @return the workload identity settings ({@code service.identity.*}) */
  public Identity getIdentity() {
    return identity;
  }

  /** @return whether the bean is created */
  public boolean isEnabled() {
    return enabled;
  }

  /** @param enabled whether the bean is created */
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /** @return the workspace's address */
  public String getBaseUrl() {
    return baseUrl;
  }

  /** @param baseUrl the workspace's address */
  public void setBaseUrl(String baseUrl) {
    this.baseUrl = baseUrl;
  }

  /** @return the API key */
  public String getApiKey() {
    return apiKey;
  }

  /** @param apiKey the API key */
  public void setApiKey(String apiKey) {
    this.apiKey = apiKey;
  }

  /** @return whether the change stream is started */
  public boolean isStream() {
    return stream;
  }

  /** @param stream whether the change stream is started */
  public void setStream(boolean stream) {
    this.stream = stream;
  }

  /** @return the cache's time-to-live */
  public Duration getCacheTtl() {
    return cacheTtl;
  }

  /** @param cacheTtl the cache's time-to-live */
  public void setCacheTtl(Duration cacheTtl) {
    this.cacheTtl = cacheTtl;
  }

  /** @return the time limit of each request */
  public Duration getRequestTimeout() {
    return requestTimeout;
  }

  /** @param requestTimeout the time limit of each request */
  public void setRequestTimeout(Duration requestTimeout) {
    this.requestTimeout = requestTimeout;
  }

  /**
   * A workload identity ({@code service.identity.*}): the client exchanges its platform's token
   * for short-lived keys. Set {@code id} and {@code method}; the rest override a method's
   * defaults.
   */
  public static class Identity {
    /** The identity's id, from the console or the management API. */
    private String id;

    /** kubernetes, aws, gcp, azure or oidc. */
    private String method;

    /** kubernetes: the service-account token file (default the projected one); oidc: the token file. */
    private Path tokenFile;

    /** gcp, azure: the audience the token is asked for. */
    private String audience;

    /** gcp: the metadata server; azure: the instance metadata service. */
    private String metadataUrl;

    /** azure: the client id of a user-assigned managed identity. */
    private String clientId;

    /** aws: the STS endpoint the request is signed for (default https://sts.amazonaws.com/). */
    private String stsEndpoint;

    /** aws: the signing region (default the endpoint's, or us-east-1). */
    private String region;

    /** aws: the identity's server_id, sent signed as X-Svc-Server-Id. */
    private String serverId;

    /** @return whether an identity is configured (an id or a method is set) */
    public boolean isConfigured() {
      return id != null || method != null;
    }

    /** @return the identity's id */
    public String getId() {
      return id;
    }

    /** @param id the identity's id */
    public void setId(String id) {
      this.id = id;
    }

    /** @return the method */
    public String getMethod() {
      return method;
    }

    /** @param method the method */
    public void setMethod(String method) {
      this.method = method;
    }

    /** @return the token file */
    public Path getTokenFile() {
      return tokenFile;
    }

    /** @param tokenFile the token file */
    public void setTokenFile(Path tokenFile) {
      this.tokenFile = tokenFile;
    }

    /** @return the audience */
    public String getAudience() {
      return audience;
    }

    /** @param audience the audience */
    public void setAudience(String audience) {
      this.audience = audience;
    }

    /** @return the metadata server's URL */
    public String getMetadataUrl() {
      return metadataUrl;
    }

    /** @param metadataUrl the metadata server's URL */
    public void setMetadataUrl(String metadataUrl) {
      this.metadataUrl = metadataUrl;
    }

    /** @return the Azure client id */
    public String getClientId() {
      return clientId;
    }

    /** @param clientId the Azure client id */
    public void setClientId(String clientId) {
      this.clientId = clientId;
    }

    /** @return the STS endpoint */
    public String getStsEndpoint() {
      return stsEndpoint;
    }

    /** @param stsEndpoint the STS endpoint */
    public void setStsEndpoint(String stsEndpoint) {
      this.stsEndpoint = stsEndpoint;
    }

    /** @return the signing region */
    public String getRegion() {
      return region;
    }

    /** @param region the signing region */
    public void setRegion(String region) {
      this.region = region;
    }

    /** @return the server id */
    public String getServerId() {
      return serverId;
    }

    /** @param serverId the server id */
    public void setServerId(String serverId) {
      this.serverId = serverId;
    }
  }
}
