package dev.svc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.client.spring.ServiceAutoConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A workload identity's settings, plain and as Spring Boot properties: every mistake is an
 * {@link IllegalArgumentException} naming the field, before any request.
 */
class IdentityConfigTest {
  /** Nothing listens at port 9 on loopback: reaching the network would be a ServiceInitException. */
  private static final String DEAD = "http://127.0.0.1:9/acme";
  private static final String ID = "f3c1b7de-0000-4000-8000-000000000001";

  static Stream<Arguments> mistakes() {
    return Stream.of(
        Arguments.of("a bad id", ID.replace('-', '/'), IdentityMethod.KUBERNETES, UnaryOperator.<WorkloadIdentity.Builder>identity(), "identity.identityId"),
        Arguments.of("no method", ID, null, UnaryOperator.<WorkloadIdentity.Builder>identity(), "identity.method is required"),
        Arguments.of("oidc without a source", ID, IdentityMethod.OIDC, UnaryOperator.<WorkloadIdentity.Builder>identity(), "either tokenFile or token"),
        Arguments.of("oidc with two", ID, IdentityMethod.OIDC, (UnaryOperator<WorkloadIdentity.Builder>) b -> b.tokenFile(Path.of("/t")).token(() -> "t"), "either tokenFile or token"),
        Arguments.of("gcp without audience", ID, IdentityMethod.GCP, UnaryOperator.<WorkloadIdentity.Builder>identity(), "identity.audience is required"),
        Arguments.of("a blank audience", ID, IdentityMethod.AZURE, (UnaryOperator<WorkloadIdentity.Builder>) b -> b.audience(" "), "identity.audience must not be blank"),
        Arguments.of("another method's field", ID, IdentityMethod.KUBERNETES, (UnaryOperator<WorkloadIdentity.Builder>) b -> b.audience("x"), "identity.audience does not apply to the kubernetes method"),
        Arguments.of("a metadata URL with a query", ID, IdentityMethod.GCP, (UnaryOperator<WorkloadIdentity.Builder>) b -> b.audience("a").metadataUrl("http://m/?x=1"), "identity.metadataUrl must be an http(s) URL"),
        Arguments.of("an STS endpoint with credentials", ID, IdentityMethod.AWS, (UnaryOperator<WorkloadIdentity.Builder>) b -> b.stsEndpoint("https://u:p@sts.amazonaws.com"), "identity.stsEndpoint must be"),
        Arguments.of("refreshAt of 1", ID, IdentityMethod.KUBERNETES, (UnaryOperator<WorkloadIdentity.Builder>) b -> b.refreshAt(1), "identity.refreshAt must be"),
        Arguments.of("a zero retry delay", ID, IdentityMethod.KUBERNETES, (UnaryOperator<WorkloadIdentity.Builder>) b -> b.retry(Duration.ZERO, Duration.ofSeconds(1)), "identity.retryInitialDelay"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mistakes")
  void refusedBeforeAnyRequest(
      String name, String id, IdentityMethod method, UnaryOperator<WorkloadIdentity.Builder> settings, String message) {
    WorkloadIdentity identity = settings.apply(WorkloadIdentity.builder(id, method)).build();
    assertThatThrownBy(() -> ServiceClient.create(ServiceConfig.builder().baseUrl(DEAD).identity(identity).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void methodsParseInAnyCaseAndPrintAsTheContractWritesThem() {
    assertThat(IdentityMethod.parse(" Kubernetes ")).isEqualTo(IdentityMethod.KUBERNETES);
    assertThat(IdentityMethod.AWS).hasToString("aws");
    assertThatThrownBy(() -> IdentityMethod.parse("ldap")).hasMessageContaining("kubernetes, aws, gcp, azure, oidc");
  }

  @Test
  void stringsNeverShowSecrets() {
    assertThat(new AwsCredentials("AKIA1", "secret", "token").toString()).doesNotContain("secret", "token");
    assertThat(WorkloadIdentity.builder(ID, IdentityMethod.OIDC).token(() -> "t0ken").build().toString())
        .doesNotContain("t0ken");
  }

  @Test
  void springPropertiesMakeAWorkloadIdentity(@TempDir Path dir) throws Exception {
    try (ExchangeService service = new ExchangeService()) {
      service.set("greeting", "hello");
      Path file = Files.writeString(dir.resolve("token"), "spring-oidc-token");
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ServiceAutoConfiguration.class))
          .withPropertyValues(
              "service.base-url=" + service.baseUrl(),
              "service.stream=false",
              "service.identity.id=" + ExchangeService.IDENTITY_ID,
              "service.identity.method=oidc",
              "service.identity.token-file=" + file)
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                ServiceClient client = context.getBean(ServiceClient.class);
                assertThat(client.getConfig("greeting").map(v -> v.asText())).contains("hello");
                assertThat(service.exchanges.get(0).get("token").asText()).isEqualTo("spring-oidc-token");
              });
    }
  }

  @Test
  void springRefusesAnIdentityWithoutAMethodOrWithAnApiKey() {
    ApplicationContextRunner runner =
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ServiceAutoConfiguration.class))
            .withPropertyValues("service.base-url=" + DEAD, "service.identity.id=" + ID);
    runner.run(
        context ->
            assertThat(context).getFailure().rootCause().hasMessageContaining("service.identity.method is required"));
    runner
        .withPropertyValues("service.identity.method=kubernetes", "service.api-key=" + FakeService.SK)
        .run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining("exclude each other"));
  }
}
