package dev.svc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ServiceConfigTest {
  private static final String SK = "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN";

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "   ",
        "not a url",
        "ftp://127.0.0.1/ws",
        "127.0.0.1:8080/ws",
        "http:///ws",
        "http://127.0.0.1/ws?x=1",
        "http://127.0.0.1/ws#frag",
        "http://user:pw@127.0.0.1/ws",
        "mailto:someone@example.com"
      })
  void rejectsABadBaseUrl(String baseUrl) {
    assertThatThrownBy(() -> ResolvedConfig.baseUrl(baseUrl)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void normalizesTheBaseUrl() {
    assertThat(ResolvedConfig.baseUrl("http://127.0.0.1:8080/acme/")).isEqualTo("http://127.0.0.1:8080/acme");
    assertThat(ResolvedConfig.baseUrl(" HTTPS://acme.config.example.com// ")).isEqualTo("https://acme.config.example.com");
    assertThat(ResolvedConfig.baseUrl("http://[::1]:8080/a")).isEqualTo("http://[::1]:8080/a");
  }

  @Test
  void createChecksEverythingBeforeAnyRequest() {
    // Nothing listens at port 9 on loopback: reaching the network would be a ServiceInitException.
    String url = "http://127.0.0.1:9/ws";
    assertThatThrownBy(() -> ServiceClient.create(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ServiceClient.create(ServiceConfig.builder().apiKey(SK).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("baseUrl");
    assertThatThrownBy(() -> ServiceClient.create(ServiceConfig.builder().baseUrl(url).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("apiKey");
    assertThatThrownBy(
            () -> ServiceClient.create(ServiceConfig.builder().baseUrl(url).apiKey(SK.replace('N', 'M')).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("svs_8a"); // never echoes the key
    assertThatThrownBy(
            () -> ServiceClient.create(ServiceConfig.builder().baseUrl(url).apiKey(SK).cacheTtl(Duration.ZERO).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cacheTtl");
    assertThatThrownBy(
            () ->
                ServiceClient.create(
                    ServiceConfig.builder().baseUrl(url).apiKey(SK).requestTimeout(Duration.ofSeconds(-1)).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("requestTimeout");
  }

  @Test
  void aKeyWithSurroundingSpaceIsTrimmed() {
    ResolvedConfig config = ResolvedConfig.of(ServiceConfig.builder().baseUrl("http://h/ws").apiKey(" " + SK + "\n").build());
    assertThat(config.apiKey()).isEqualTo(SK);
    assertThat(config.keyType()).isEqualTo("sk");
    assertThat(config.stream()).isTrue();
    assertThat(config.cacheTtl()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void toStringHidesTheKey() {
    assertThat(ServiceConfig.builder().baseUrl("http://h/ws").apiKey(SK).build().toString()).doesNotContain(SK);
  }

  @Test
  void theDefaultLoggerIsTheSlf4jLoggerNamedAfterServiceClient() {
    ServiceLogger logger = ServiceLogger.defaultLogger();
    assertThat(logger).isInstanceOf(Slf4jServiceLogger.class);
    assertThat(((Slf4jServiceLogger) logger).logger().getName()).isEqualTo("dev.svc.client.ServiceClient");
  }
}
