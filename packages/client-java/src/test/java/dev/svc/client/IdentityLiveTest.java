package dev.svc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.svc.client.live.IdentityUpstreams;
import dev.svc.client.live.LiveServer;
import dev.svc.client.live.LiveServerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workload identity against the real api (the shared live server) and the testkit's stand-ins:
 * an OIDC token file, and an AWS {@code GetCallerIdentity} signed by the AWS SDK for Java and
 * checked by the STS stand-in through the api's exchange; and a client whose keys live 60 s (the
 * shortest the api mints) and refresh every 3 s keeps serving across the refreshes and misses no
 * change made across them ({@code Last-Event-ID}).
 */
@ExtendWith(LiveServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdentityLiveTest {
  private static final AtomicInteger COUNTER = new AtomicInteger();

  private LiveServer live;
  private IdentityUpstreams upstreams;
  private String ws;
  private String project;
  private final List<ServiceClient> clients = new ArrayList<>();

  @BeforeAll
  void start(LiveServer live) throws Exception {
    this.live = live;
    upstreams = new IdentityUpstreams();
    ws = "identity-java-" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
    project = "/workspaces/" + ws + "/projects/web";
    live.admin("POST", "/workspaces", Map.of("slug", ws, "name", "Identity"));
    live.admin("POST", "/workspaces/" + ws + "/projects", Map.of("slug", "web", "name", "Web"));
    live.admin("PUT", project + "/configs/greeting", Map.of("value", "hello", "is_public", false));
  }

  @AfterAll
  void stop() {
    if (upstreams != null) upstreams.close();
  }

  @AfterEach
  void closeClients() {
    clients.forEach(ServiceClient::close);
    clients.clear();
  }

  private String identity(String method, Map<String, Object> block, int ttl) throws Exception {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", method + " " + ttl + " " + COUNTER.incrementAndGet());
    body.put("kind", "secret");
    body.put("ttl_s", ttl);
    body.put("method", method);
    body.put(method, block);
    return live.admin("POST", project + "/identities", body).json().get("id").asText();
  }

  private String oidcIdentity(int ttl) throws Exception {
    return identity(
        "oidc",
        Map.of("issuer", upstreams.oidc.get("issuer").asText(), "audiences", List.of(upstreams.oidc.get("audience").asText())),
        ttl);
  }

  private ServiceClient create(WorkloadIdentity identity, boolean stream, ServiceLogger logger) {
    ServiceClient client =
        ServiceClient.create(
            ServiceConfig.builder()
                .baseUrl(live.apiUrl() + "/" + ws)
                .identity(identity)
                .stream(stream)
                .logger(logger)
                .build());
    clients.add(client);
    return client;
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    Await.until(condition, what, Duration.ofSeconds(15));
  }

  @Test
  void anOidcTokenFileGetsAWorkingKey(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("token"), upstreams.oidc.get("token").asText());
    WorkloadIdentity identity = WorkloadIdentity.builder(oidcIdentity(900), IdentityMethod.OIDC).tokenFile(file).build();
    ServiceClient client = create(identity, false, ServiceLogger.silent());
    assertThat(client.getConfig("greeting").map(JsonNode::asText)).contains("hello");
  }

  @Test
  void awsSignedByTheSdkIsAcceptedByStsThroughTheApi() throws Exception {
    JsonNode aws = upstreams.aws;
    String endpoint = aws.get("sts_endpoint").asText();
    String id =
        identity(
            "aws",
            Map.of(
                "accounts", List.of(aws.get("account").asText()),
                "principal_arns", List.of(aws.get("role_arn_pattern").asText()),
                "sts_endpoint", endpoint,
                "server_id", "svc.test"),
            900);
    AwsCredentials credentials =
        new AwsCredentials(
            aws.get("access_key_id").asText(), aws.get("secret_access_key").asText(), aws.get("session_token").asText());
    WorkloadIdentity identity =
        WorkloadIdentity.builder(id, IdentityMethod.AWS)
            .stsEndpoint(endpoint)
            .serverId("svc.test")
            .awsCredentials(() -> credentials)
            .build();
    assertThat(create(identity, false, ServiceLogger.silent()).getConfig("greeting").map(JsonNode::asText))
        .contains("hello");

    AwsCredentials wrong = new AwsCredentials(credentials.accessKeyId(), "not-the-secret", credentials.sessionToken());
    WorkloadIdentity refused =
        WorkloadIdentity.builder(id, IdentityMethod.AWS).stsEndpoint(endpoint).serverId("svc.test").awsCredentials(() -> wrong).build();
    assertThatThrownBy(() -> create(refused, false, ServiceLogger.silent()))
        .isInstanceOf(ServiceInitException.class)
        .hasCauseInstanceOf(ServiceUnauthorizedException.class);
  }

  @Test
  void keepsServingAcrossRefreshesAndMissesNoChange() throws Exception {
    AtomicInteger exchanges = new AtomicInteger();
    List<String> infos = new CopyOnWriteArrayList<>();
    List<String> debugs = new CopyOnWriteArrayList<>();
    ServiceLogger logger =
        new ServiceLogger() {
          @Override
          public void debug(String message) {
            debugs.add(message);
          }

          @Override
          public void info(String message) {
            infos.add(message);
          }

          @Override
          public void error(String message, Throwable cause) {}
        };
    String token = upstreams.oidc.get("token").asText();
    String id = oidcIdentity(60);
    // 5% of 60 s: a new key every 3 s.
    WorkloadIdentity identity =
        WorkloadIdentity.builder(id, IdentityMethod.OIDC)
            .token(
                () -> {
                  exchanges.incrementAndGet();
                  return token;
                })
            .refreshAt(0.05)
            .build();
    ServiceClient client = create(identity, true, logger);
    await(client::isStreamConnected, "the stream connects");
    long started = System.nanoTime();
    int n = 0;
    while (System.nanoTime() - started < Duration.ofSeconds(10).toNanos()) {
      n++;
      live.admin("PUT", project + "/configs/e2e.c" + n, Map.of("value", n, "is_public", false));
      Thread.sleep(100);
    }
    int last = n;
    await(() -> client.getConfig("e2e.c" + last).map(JsonNode::asInt).orElse(0) == last, "the last change arrives");
    for (int i = 1; i <= n; i++) assertThat(client.getConfig("e2e.c" + i).map(JsonNode::asInt)).contains(i);

    // Every change came by the stream: the initial sync was the only one.
    assertThat(debugs.stream().filter(m -> m.startsWith("sync: ")).count()).isEqualTo(1);
    assertThat(exchanges.get()).isGreaterThanOrEqualTo(4);
    assertThat(infos.stream().filter(m -> m.equals("stream connected")).count()).isGreaterThanOrEqualTo(4);
    JsonNode listed = live.admin("GET", project + "/identities", null).json();
    JsonNode mine = null;
    for (JsonNode item : listed) if (item.get("id").asText().equals(id)) mine = item;
    assertThat(mine).isNotNull();
    assertThat(mine.get("live_keys").asInt()).isGreaterThanOrEqualTo(4);
  }
}
