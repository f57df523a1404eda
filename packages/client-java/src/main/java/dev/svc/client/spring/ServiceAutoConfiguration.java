package dev.svc.client.spring;

import dev.svc.client.IdentityMethod;
import dev.svc.client.ServiceClient;
import dev.svc.client.ServiceConfig;
import dev.svc.client.ServiceLogger;
import dev.svc.client.WorkloadIdentity;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Spring Boot auto-configuration of the {@link ServiceClient} bean, from the {@code service.*}
 * properties ({@link ServiceProperties}).
 *
 * <ul>
 *   <li>The bean runs the initial sync when it is created, so the application fails to start
 *       when the service cannot be reached or the key is wrong ({@code ServiceInitException}),
 *       or when {@code service.base-url} or {@code service.api-key} is missing or invalid
 *       ({@code IllegalArgumentException}).
 *   <li>With {@code service.identity.id} and {@code service.identity.method} instead of an API
 *       key, it exchanges the workload's platform token for short-lived keys and refreshes them
 *       before they expire.
 *   <li>It starts the change stream unless {@code service.stream=false}.
 *   <li>{@code close()} is its destroy method: the stream stops and file secrets are removed
 *       when the context closes.
 *   <li>A {@link ServiceLogger} bean of the application replaces the default logger.
 *   <li>An application's own {@code ServiceClient} bean, or {@code service.enabled=false},
 *       turns this off.
 * </ul>
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "service", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(ServiceProperties.class)
public class ServiceAutoConfiguration {
  /**
   * The client.
   *
   * @param properties the {@code service.*} properties
   * @param logger the application's {@link ServiceLogger}, if it has exactly one
   * @return a synced client
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public ServiceClient serviceClient(ServiceProperties properties, ObjectProvider<ServiceLogger> logger) {
    ServiceConfig.Builder config =
        ServiceConfig.builder()
            .baseUrl(properties.getBaseUrl())
            .apiKey(properties.getApiKey())
            .stream(properties.isStream())
            .cacheTtl(properties.getCacheTtl())
            .requestTimeout(properties.getRequestTimeout())
            .logger(logger.getIfUnique(ServiceLogger::defaultLogger));
    ServiceProperties.Identity identity = properties.getIdentity();
    if (identity.isConfigured()) config.identity(identity(identity));
    return ServiceClient.create(config.build());
  }

  private static WorkloadIdentity identity(ServiceProperties.Identity p) {
    if (p.getMethod() == null) throw new IllegalArgumentException("service.identity.method is required");
    return WorkloadIdentity.builder(p.getId(), IdentityMethod.parse(p.getMethod()))
        .tokenFile(p.getTokenFile())
        .audience(p.getAudience())
        .metadataUrl(p.getMetadataUrl())
        .clientId(p.getClientId())
        .stsEndpoint(p.getStsEndpoint())
        .region(p.getRegion())
        .serverId(p.getServerId())
        .build();
  }
}
