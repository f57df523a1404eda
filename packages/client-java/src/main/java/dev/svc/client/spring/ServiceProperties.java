package dev.svc.client.spring;

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
}
