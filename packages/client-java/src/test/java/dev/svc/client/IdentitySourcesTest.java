package dev.svc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workload identity token sources, each against a real socket: the token files of Kubernetes
 * and OIDC, an OIDC supplier, stand-ins for the GCP metadata server and the Azure instance
 * metadata service, and an AWS {@code GetCallerIdentity} signed with the AWS SDK's signer from
 * given and from default-chain credentials, checked on the receiving side by signing it again.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdentitySourcesTest {
  private static final AwsCredentials CREDENTIALS =
      new AwsCredentials("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "session-token-example");

  private ExchangeService service;
  private final List<ServiceClient> clients = new ArrayList<>();
  @TempDir Path dir;

  @BeforeAll
  void start() throws Exception {
    service = new ExchangeService();
    service.ttlMs = 600_000;
  }

  @AfterAll
  void stop() {
    service.close();
  }

  @AfterEach
  void reset() {
    clients.forEach(ServiceClient::close);
    clients.clear();
    service.exchanges.clear();
    service.metadataRequests.clear();
    service.verify = body -> ExchangeService.Verdict.OK;
  }

  private ServiceClient create(WorkloadIdentity.Builder identity) {
    ServiceClient client =
        ServiceClient.create(
            ServiceConfig.builder()
                .baseUrl(service.baseUrl())
                .identity(identity.build())
                .stream(false)
                .logger(ServiceLogger.silent())
                .build());
    clients.add(client);
    return client;
  }

  private static WorkloadIdentity.Builder identity(IdentityMethod method) {
    return WorkloadIdentity.builder(ExchangeService.IDENTITY_ID, method);
  }

  /** The exchange's failure at {@code create()}: the reason's message. */
  private String createFails(WorkloadIdentity.Builder identity) {
    Throwable error = org.assertj.core.api.Assertions.catchThrowable(() -> create(identity));
    assertThat(error).isInstanceOf(ServiceInitException.class);
    return error.getCause().getMessage();
  }

  @Test
  void kubernetesSendsTheTokenFileReadAgainAtEachExchange() throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, "k8s-token-1\n");
    ServiceClient client = create(identity(IdentityMethod.KUBERNETES).tokenFile(file));
    assertThat(service.exchanges).hasSize(1);
    assertThat(service.exchanges.get(0).get("identity_id").asText()).isEqualTo(ExchangeService.IDENTITY_ID);
    assertThat(service.exchanges.get(0).get("token").asText()).isEqualTo("k8s-token-1");
    assertThat(client.getKeyType()).isEqualTo("sk");
    Files.writeString(file, "k8s-token-2");
    create(identity(IdentityMethod.KUBERNETES).tokenFile(file));
    assertThat(service.exchanges.get(1).get("token").asText()).isEqualTo("k8s-token-2");
  }

  @Test
  void kubernetesDefaultFileIsTheServiceAccountToken() {
    assertThat(createFails(identity(IdentityMethod.KUBERNETES)))
        .isEqualTo(
            "identity: cannot read the token file /var/run/secrets/kubernetes.io/serviceaccount/token (no such file)");
    assertThat(service.exchanges).isEmpty();
  }

  @Test
  void oidcTokenFileEmptyOrOversizedIsRefused() throws Exception {
    Path file = dir.resolve("oidc");
    Files.writeString(file, "  eyJ.oidc.token  ");
    create(identity(IdentityMethod.OIDC).tokenFile(file));
    assertThat(service.exchanges.get(0).get("token").asText()).isEqualTo("eyJ.oidc.token");
    Files.writeString(file, "\n");
    assertThat(createFails(identity(IdentityMethod.OIDC).tokenFile(file))).contains("gave an empty token");
    Files.writeString(file, "x".repeat(65 * 1024));
    assertThat(createFails(identity(IdentityMethod.OIDC).tokenFile(file))).contains("larger than 65536");
    assertThat(service.exchanges).hasSize(1);
  }

  @Test
  void oidcSupplierIsAskedAtEachExchange() {
    AtomicInteger n = new AtomicInteger();
    create(identity(IdentityMethod.OIDC).token(() -> "ci-token-" + n.incrementAndGet()));
    create(identity(IdentityMethod.OIDC).token(() -> "ci-token-" + n.incrementAndGet()));
    assertThat(service.exchanges).extracting(e -> e.get("token").asText()).containsExactly("ci-token-1", "ci-token-2");
    assertThat(
            createFails(
                identity(IdentityMethod.OIDC)
                    .token(
                        () -> {
                          throw new IllegalStateException("no CI token");
                        })))
        .isEqualTo("identity: the token supplier failed");
  }

  @Test
  void gcpAsksTheMetadataServerForTheAudience() {
    service.gcpToken = "gcp.jwt.token";
    create(identity(IdentityMethod.GCP).audience("https://svc.example/acme").metadataUrl(service.origin() + "/gcp"));
    Map.Entry<String, Map<String, List<String>>> request = service.metadataRequests.get(0);
    URI url = URI.create(request.getKey());
    assertThat(url.getPath()).isEqualTo("/gcp/computeMetadata/v1/instance/service-accounts/default/identity");
    assertThat(url.getQuery()).isEqualTo("audience=https://svc.example/acme&format=full");
    assertThat(request.getValue().get("Metadata-flavor")).containsExactly("Google");
    assertThat(service.exchanges.get(0).get("token").asText()).isEqualTo("gcp.jwt.token");
  }

  @Test
  void azureAsksTheInstanceMetadataServiceForTheAudience() {
    service.azureToken = "azure.jwt.token";
    String metadataUrl = service.origin() + "/azure/";
    create(identity(IdentityMethod.AZURE).audience("api://svc").metadataUrl(metadataUrl));
    create(identity(IdentityMethod.AZURE).audience("api://svc").metadataUrl(metadataUrl).clientId("c-123"));
    assertThat(URI.create(service.metadataRequests.get(0).getKey()).getQuery())
        .isEqualTo("api-version=2018-02-01&resource=api://svc");
    assertThat(URI.create(service.metadataRequests.get(1).getKey()).getQuery()).endsWith("&client_id=c-123");
    assertThat(service.metadataRequests.get(0).getValue().get("Metadata")).containsExactly("true");
    assertThat(service.exchanges).extracting(e -> e.get("token").asText()).containsOnly("azure.jwt.token");
  }

  @Test
  void aMetadataServerThatRefusesOrIsAbsentFailsCreate() {
    assertThat(createFails(identity(IdentityMethod.GCP).audience("x").metadataUrl(service.origin() + "/gcp/x")))
        .isEqualTo("identity: the GCP metadata server answered HTTP 404");
    assertThat(createFails(identity(IdentityMethod.AZURE).audience("x").metadataUrl("http://127.0.0.1:9")))
        .startsWith("identity: the Azure metadata service failed: ");
    assertThat(service.exchanges).isEmpty();
  }

  /** The exchange accepts only a request signed by {@code by}. */
  private List<String> acceptSignedBy(AwsCredentials by, String region, List<String> mustSign) {
    List<String> problems = new java.util.concurrent.CopyOnWriteArrayList<>();
    service.verify =
        body -> {
          String problem = Sigv4Check.problem(body.path("aws"), by, region, mustSign);
          problems.add(problem == null ? "none" : problem);
          return problem == null
              ? ExchangeService.Verdict.OK
              : ExchangeService.Verdict.error(401, "unauthorized", "upstream_rejected");
        };
    return problems;
  }

  @Test
  void awsSignsGetCallerIdentityForTheGlobalEndpoint() {
    List<String> problems = acceptSignedBy(CREDENTIALS, "us-east-1", List.of());
    create(identity(IdentityMethod.AWS).awsCredentials(() -> CREDENTIALS));
    assertThat(problems).containsExactly("none");
    JsonNode body = service.exchanges.get(0);
    assertThat(body.has("token")).isFalse();
    JsonNode aws = body.get("aws");
    assertThat(aws.get("method").asText()).isEqualTo("POST");
    assertThat(aws.get("url").asText()).isEqualTo("https://sts.amazonaws.com/");
    assertThat(new String(Base64.getDecoder().decode(aws.get("body").asText()), StandardCharsets.UTF_8))
        .isEqualTo("Action=GetCallerIdentity&Version=2011-06-15");
    assertThat(aws.get("headers").get("Host").asText()).isEqualTo("sts.amazonaws.com");
    assertThat(aws.get("headers").get("X-Amz-Security-Token").asText()).isEqualTo("session-token-example");
  }

  @Test
  void awsSignsTheServerIdForARegionalEndpoint() {
    List<String> problems = acceptSignedBy(CREDENTIALS, "eu-west-1", List.of("x-svc-server-id"));
    create(
        identity(IdentityMethod.AWS)
            .awsCredentials(() -> CREDENTIALS)
            .serverId("svc.example.com")
            .stsEndpoint("https://sts.eu-west-1.amazonaws.com"));
    assertThat(problems).containsExactly("none");
    assertThat(service.exchanges.get(0).get("aws").get("headers").get("X-Svc-Server-Id").asText())
        .isEqualTo("svc.example.com");
  }

  @Test
  void theCheckFailsForAnotherSecretOrAChangedHeader() {
    AwsCredentials other = new AwsCredentials(CREDENTIALS.accessKeyId(), "another-secret", CREDENTIALS.sessionToken());
    List<String> problems = acceptSignedBy(other, "us-east-1", List.of());
    assertThat(createFails(identity(IdentityMethod.AWS).awsCredentials(() -> CREDENTIALS)))
        .isEqualTo("identity exchange: HTTP 401 unauthorized: upstream_rejected");
    assertThat(problems).containsExactly("bad signature");
    com.fasterxml.jackson.databind.node.ObjectNode tampered = service.exchanges.get(0).get("aws").deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) tampered.get("headers")).put("Content-Type", "text/plain");
    assertThat(Sigv4Check.problem(tampered, CREDENTIALS, "us-east-1", List.of())).isEqualTo("bad signature");
  }

  @Test
  void awsTakesTheDefaultChain() {
    // The SDK's default chain reads the system properties before the environment.
    Map<String, String> properties =
        Map.of("aws.accessKeyId", "AKIAPROPEXAMPLE00001", "aws.secretAccessKey", "prop-secret-access-key-example");
    properties.forEach(System::setProperty);
    try {
      List<String> problems =
          acceptSignedBy(
              new AwsCredentials("AKIAPROPEXAMPLE00001", "prop-secret-access-key-example", null),
              "us-east-1",
              List.of());
      create(identity(IdentityMethod.AWS));
      assertThat(problems).containsExactly("none");
    } finally {
      properties.keySet().forEach(System::clearProperty);
    }
  }

  @Test
  void identityAndApiKeyExcludeEachOther() {
    assertThatThrownBy(
            () ->
                ServiceClient.create(
                    ServiceConfig.builder()
                        .baseUrl(service.baseUrl())
                        .apiKey(FakeService.SK)
                        .identity(identity(IdentityMethod.KUBERNETES).build())
                        .build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exclude each other");
  }
}
