package dev.svc.client.openfeature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.openfeature.sdk.Client;
import dev.openfeature.sdk.ErrorCode;
import dev.openfeature.sdk.EvaluationContext;
import dev.openfeature.sdk.FlagEvaluationDetails;
import dev.openfeature.sdk.ImmutableContext;
import dev.openfeature.sdk.OpenFeatureAPI;
import dev.openfeature.sdk.ProviderEvent;
import dev.openfeature.sdk.ProviderState;
import dev.openfeature.sdk.Value;
import dev.openfeature.sdk.exceptions.OpenFeatureError;
import dev.openfeature.sdk.exceptions.ProviderNotReadyError;
import dev.svc.client.ServiceClient;
import dev.svc.client.ServiceConfig;
import dev.svc.client.ServiceException;
import dev.svc.client.ServiceLogger;
import dev.svc.client.live.ApiProxy;
import dev.svc.client.live.LiveServer;
import dev.svc.client.live.LiveServerExtension;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The native provider under the OpenFeature Java SDK (from Maven Central), against the real
 * console and api as processes: each provider requirement it claims (OpenFeature spec,
 * providers and events), checked end to end, as the TypeScript provider's tests do. Requests
 * go through a proxy that counts them (and can hold them back, or go away). There is no
 * provider test kit for Java on Maven Central to run instead.
 */
@ExtendWith(LiveServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SvcProviderTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final List<String> FLAGS = InteropProject.FLAGS;
  private static final String BAD_KEY = "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN";

  /** An isolated API: the other OpenFeature tests of this run use the global one. */
  private final OpenFeatureAPI api = OpenFeatureAPI.createIsolated();
  private LiveServer live;
  private ApiProxy proxy;
  private String ws;
  private String project;
  private String sk;

  /** One event as a client's handler got it. */
  private record Event(ProviderEvent type, List<String> flagsChanged, long at) {}

  /** A provider in a domain of its own, and what its client heard. */
  private record Opened(SvcProvider provider, Client client, List<Event> events) {
    boolean heard(ProviderEvent type) {
      return events.stream().anyMatch(e -> e.type() == type);
    }
  }

  @BeforeAll
  void workspace(LiveServer live) throws Exception {
    this.live = live;
    ws = "of-java-" + ProcessHandle.current().pid();
    project = InteropProject.create(live, ws, "OpenFeature Java");
    live.admin("PUT", project + "/configs/banner.text", Map.of("value", "hello", "is_public", true));
    live.admin("PUT", project + "/configs/beta.banner", Map.of("value", true, "is_public", true));
    sk = newKey().get("key").asText();
    proxy = ApiProxy.start(live.apiUrl());
  }

  @AfterAll
  void shutdown() {
    api.shutdown();
    if (proxy != null) proxy.close();
  }

  /** A new secret key once the api accepts it: its {@code key} and {@code id}. */
  private JsonNode newKey() throws Exception {
    JsonNode created = live.admin("POST", project + "/keys", Map.of("kind", "secret")).json();
    live.awaitKey(ws, created.get("key").asText());
    return created;
  }

  private ServiceConfig.Builder config(ApiProxy through, String key) {
    return ServiceConfig.builder()
        .baseUrl(through.url() + "/" + ws)
        .apiKey(key)
        .logger(ServiceLogger.silent())
        .reconnectInitialDelay(Duration.ofMillis(100))
        .reconnectMaxDelay(Duration.ofMillis(200));
  }

  /** Sets {@code provider} for {@code domain} and waits; a failed initialization is recorded, not thrown. */
  private Opened open(String domain, SvcProvider provider) {
    Client client = api.getClient(domain);
    List<Event> events = new CopyOnWriteArrayList<>();
    for (ProviderEvent type : ProviderEvent.values()) {
      client.on(type, details -> events.add(new Event(type, details.getFlagsChanged(), System.nanoTime())));
    }
    try {
      api.setProviderAndWait(domain, provider);
    } catch (OpenFeatureError initializationFailed) {
      // the client's state and events say it
    }
    return new Opened(provider, client, events);
  }

  private Opened open(String domain) {
    return open(domain, new SvcProvider(config(proxy, sk).build()));
  }

  private static void await(BooleanSupplier condition, String what, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting until " + what);
      Thread.sleep(10);
    }
  }

  /** {@code POST /v1/flags/evaluate-ab} straight to the api: the status and the results. */
  private HttpResponse<String> evaluateAb(List<String> flags, String user, Map<String, Object> attributes) throws Exception {
    return InteropProject.evaluateAb(live, ws, sk, flags, user, attributes);
  }

  @Test
  void namesItselfAndIsReadyOnceItsClientHasSynced() throws Exception {
    Opened opened = open("ready");
    assertThat(opened.client().getMetadata().getDomain()).isEqualTo("ready");
    assertThat(api.getProviderMetadata("ready").getName()).isEqualTo("svc");
    assertThat(opened.client().getProviderState()).isEqualTo(ProviderState.READY);
    // Handlers run on the SDK's event thread.
    await(() -> opened.heard(ProviderEvent.PROVIDER_READY), "the ready event", Duration.ofSeconds(5));
    assertThat(opened.provider().getClient().getStatus().ready()).isTrue();
  }

  @Test
  void closesTheClientItCreatedOnceReplaced() throws Exception {
    Opened opened = open("replaced");
    ServiceClient created = opened.provider().getClient();
    api.setProviderAndWait("replaced", new SvcProvider(config(proxy, sk).build()));
    await(
        () -> {
          try {
            created.sync();
            return false;
          } catch (ServiceException closed) {
            return closed.getMessage().contains("closed");
          }
        },
        "the replaced provider's client is closed",
        Duration.ofSeconds(10));
    assertThat(opened.client().getBooleanValue("everyone", false)).isTrue();
  }

  @Test
  void answersFlagsAndConfigsFromTheCacheWithoutARequest() {
    Client client = open("reads").client();
    int syncs = proxy.count("/v1/sync");
    int evaluations = proxy.count("/v1/flags/evaluate-ab");
    FlagEvaluationDetails<Boolean> everyone = client.getBooleanDetails("everyone", false);
    assertThat(everyone.getValue()).isTrue();
    assertThat(everyone.getReason()).isEqualTo("STATIC");
    assertThat(everyone.getVariant()).isEqualTo("on");
    // Attributes without a targeting key: the flag's state, no evaluation.
    EvaluationContext noUser = new ImmutableContext(Map.of("plan", new Value("free")));
    assertThat(client.getBooleanDetails("pro.only", false, noUser).getValue()).isTrue();
    assertThat(client.getBooleanDetails("pro.only", false, noUser).getReason()).isEqualTo("STATIC");
    FlagEvaluationDetails<Boolean> off = client.getBooleanDetails("switched.off", true);
    assertThat(off.getValue()).isFalse();
    assertThat(off.getReason()).isEqualTo("DISABLED");
    assertThat(off.getVariant()).isEqualTo("off");
    FlagEvaluationDetails<String> theme = client.getStringDetails("ui.theme", "none");
    assertThat(theme.getValue()).isEqualTo("dark");
    assertThat(theme.getReason()).isEqualTo("STATIC");
    assertThat(theme.getErrorCode()).isNull();
    assertThat(client.getIntegerValue("limits.rps", 1)).isEqualTo(40);
    assertThat(client.getLongValue("limits.rps", 1L)).isEqualTo(40L);
    assertThat(client.getDoubleValue("limits.rps", 1.5)).isEqualTo(40.0);
    assertThat(client.getDoubleValue("ratio", 1.5)).isEqualTo(0.25);
    Map<String, Object> pool = new LinkedHashMap<>();
    pool.put("max", 10);
    pool.put("hosts", List.of("a", "b"));
    assertThat(client.getObjectValue("db.pool", new Value()).asStructure().asObjectMap()).isEqualTo(pool);
    assertThat(client.getBooleanDetails("beta.banner", false).getValue()).isTrue();
    assertThat(client.getBooleanDetails("beta.banner", false).getReason()).isEqualTo("STATIC");
    assertThat(proxy.count("/v1/sync")).isEqualTo(syncs);
    assertThat(proxy.count("/v1/flags/evaluate-ab")).isEqualTo(evaluations);
  }

  @Test
  void answersTheDefaultWithFlagNotFoundOrTypeMismatch() {
    Client client = open("errors").client();
    FlagEvaluationDetails<Boolean> unknown = client.getBooleanDetails("no.such", true);
    assertThat(unknown.getValue()).isTrue();
    assertThat(unknown.getReason()).isEqualTo("ERROR");
    assertThat(unknown.getErrorCode()).isEqualTo(ErrorCode.FLAG_NOT_FOUND);
    // A secret is never resolved, even for a secret key that sees it.
    FlagEvaluationDetails<String> secret = client.getStringDetails("stripe.key", "none");
    assertThat(secret.getValue()).isEqualTo("none");
    assertThat(secret.getErrorCode()).isEqualTo(ErrorCode.FLAG_NOT_FOUND);
    FlagEvaluationDetails<Integer> notANumber = client.getIntegerDetails("ui.theme", 3);
    assertThat(notANumber.getValue()).isEqualTo(3);
    assertThat(notANumber.getErrorCode()).isEqualTo(ErrorCode.TYPE_MISMATCH);
    assertThat(client.getIntegerDetails("ratio", 3).getErrorCode()).isEqualTo(ErrorCode.TYPE_MISMATCH);
    FlagEvaluationDetails<String> flagAsString = client.getStringDetails("everyone", "d");
    assertThat(flagAsString.getValue()).isEqualTo("d");
    assertThat(flagAsString.getErrorCode()).isEqualTo(ErrorCode.TYPE_MISMATCH);
    assertThat(flagAsString.getErrorMessage()).contains("is a flag");
    assertThat(client.getObjectDetails("limits.rps", new Value(1)).getErrorCode()).isEqualTo(ErrorCode.TYPE_MISMATCH);
    assertThat(client.getBooleanDetails("ui.theme", false).getErrorCode()).isEqualTo(ErrorCode.TYPE_MISMATCH);
  }

  @Test
  void isNotReadyBeforeItsClientHasSynced() throws Exception {
    SvcProvider provider = new SvcProvider(config(proxy, sk).build());
    assertThatThrownBy(() -> provider.getBooleanEvaluation("everyone", false, new ImmutableContext()))
        .isInstanceOf(ProviderNotReadyError.class)
        .satisfies(e -> assertThat(((OpenFeatureError) e).getErrorCode()).isEqualTo(ErrorCode.PROVIDER_NOT_READY));
    // Through the SDK, while the first sync is on its way.
    try (ApiProxy slow = ApiProxy.start(live.apiUrl())) {
      slow.hold("/v1/sync", Duration.ofSeconds(2));
      Client client = api.getClient("not-ready");
      api.setProvider("not-ready", new SvcProvider(config(slow, sk).build()));
      FlagEvaluationDetails<Boolean> early = client.getBooleanDetails("everyone", false);
      assertThat(early.getValue()).isFalse();
      assertThat(early.getErrorCode()).isEqualTo(ErrorCode.PROVIDER_NOT_READY);
      await(() -> client.getProviderState() == ProviderState.READY, "ready", Duration.ofSeconds(20));
      assertThat(client.getBooleanValue("everyone", false)).isTrue();
    }
  }

  @Test
  void evaluatesWithEvaluateAbForATargetingKeySharingRequestsPerUser() throws Exception {
    Client client = open("targeted").client();
    // A slow network: evaluations of a user asked while its first request is on its way gather.
    proxy.hold("/v1/flags/evaluate-ab", Duration.ofMillis(500));
    int before = proxy.count("/v1/flags/evaluate-ab");
    List<Map<String, Object>> users = new ArrayList<>();
    List<JsonNode> expected = new ArrayList<>();
    for (int u = 0; u < 4; u++) {
      Map<String, Object> attributes = Map.of("plan", u % 2 == 0 ? "pro" : "free", "country", u % 3 == 0 ? "DE" : "FR");
      String user = "user-" + (u * 7919 + 13);
      HttpResponse<String> ab = evaluateAb(FLAGS, user, attributes);
      assertThat(ab.statusCode()).isEqualTo(200);
      expected.add(MAPPER.readTree(ab.body()).get("results"));
      Map<String, Object> entry = new LinkedHashMap<>(attributes);
      entry.put("targetingKey", user);
      users.add(entry);
    }
    // All 20 (user, flag) pairs at once, one thread each.
    ExecutorService threads = Executors.newFixedThreadPool(20);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<FlagEvaluationDetails<Boolean>>> answers = new ArrayList<>();
    try {
      for (Map<String, Object> user : users) {
        Map<String, Value> values = new LinkedHashMap<>();
        user.forEach((k, v) -> values.put(k, new Value((String) v)));
        EvaluationContext context = new ImmutableContext(values);
        for (String flag : FLAGS) {
          answers.add(
              threads.submit(
                  () -> {
                    go.await();
                    return client.getBooleanDetails(flag, false, context);
                  }));
        }
      }
      go.countDown();
      Set<Boolean> seen = new HashSet<>();
      for (int i = 0; i < answers.size(); i++) {
        String flag = FLAGS.get(i % FLAGS.size());
        FlagEvaluationDetails<Boolean> details = answers.get(i).get();
        String pair = users.get(i / FLAGS.size()).get("targetingKey") + " " + flag;
        assertThat(details.getErrorCode()).as(pair).isNull();
        assertThat(details.getValue()).as(pair).isEqualTo(expected.get(i / FLAGS.size()).get(flag).asBoolean());
        assertThat(details.getReason()).as(pair).isEqualTo(flag.equals("switched.off") ? "DISABLED" : "TARGETING_MATCH");
        assertThat(details.getVariant()).isEqualTo(details.getValue() ? "on" : "off");
        seen.add(details.getValue());
      }
      assertThat(seen).containsExactlyInAnyOrder(true, false);
    } finally {
      threads.shutdownNow();
      proxy.hold("/v1/flags/evaluate-ab", Duration.ZERO);
    }
    // Four active flags per user: the first request alone, the other three together.
    int requests = proxy.count("/v1/flags/evaluate-ab") - before;
    assertThat(requests).isBetween(4, 8);
  }

  @Test
  void emitsConfigurationChangedWithTheChangedKeysWhenTheStreamBringsAChange() throws Exception {
    Opened opened = open("changes");
    await(() -> opened.provider().getClient().isStreamConnected(), "the stream is connected", Duration.ofSeconds(10));
    long start = System.nanoTime();
    live.admin("PUT", project + "/configs/banner.text", Map.of("value", "bonjour", "is_public", true));
    await(() -> opened.heard(ProviderEvent.PROVIDER_CONFIGURATION_CHANGED), "the change event", Duration.ofSeconds(5));
    Event changed =
        opened.events().stream().filter(e -> e.type() == ProviderEvent.PROVIDER_CONFIGURATION_CHANGED).findFirst().orElseThrow();
    assertThat(changed.flagsChanged()).containsExactly("banner.text");
    assertThat(Duration.ofNanos(changed.at() - start)).isLessThan(Duration.ofSeconds(2));
    assertThat(opened.client().getStringValue("banner.text", "x")).isEqualTo("bonjour");
  }

  @Test
  void evaluatesStaticallyWhileTheAbAddOnIsOffWithoutAskingAgainForAWhile() throws Exception {
    Client client = open("addon-off").client();
    int before = proxy.count("/v1/flags/evaluate-ab");
    live.admin("PATCH", project, Map.of("ab_testing", false));
    try {
      await(() -> status(List.of("half"), "u") == 403, "evaluate-ab refuses", Duration.ofSeconds(10));
      EvaluationContext context = new ImmutableContext("u", Map.of("plan", new Value("free")));
      for (int i = 0; i < 5; i++) {
        FlagEvaluationDetails<Boolean> details = client.getBooleanDetails("pro.only", false, context);
        assertThat(details.getValue()).isTrue();
        assertThat(details.getReason()).isEqualTo("STATIC");
        assertThat(details.getErrorCode()).isNull();
      }
      assertThat(proxy.count("/v1/flags/evaluate-ab") - before).isEqualTo(1);
    } finally {
      live.admin("PATCH", project, Map.of("ab_testing", true));
      await(() -> status(List.of("half"), "u") == 200, "evaluate-ab answers again", Duration.ofSeconds(10));
    }
  }

  private int status(List<String> flags, String user) {
    try {
      return evaluateAb(flags, user, Map.of()).statusCode();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void isFatalWithARefusedKey() throws Exception {
    Opened opened = open("bad-key", new SvcProvider(config(proxy, BAD_KEY).build()));
    assertThat(opened.client().getProviderState()).isEqualTo(ProviderState.FATAL);
    await(() -> opened.heard(ProviderEvent.PROVIDER_ERROR), "the error event", Duration.ofSeconds(5));
    FlagEvaluationDetails<Boolean> details = opened.client().getBooleanDetails("everyone", false);
    assertThat(details.getValue()).isFalse();
    assertThat(details.getErrorCode()).isEqualTo(ErrorCode.PROVIDER_FATAL);
  }

  @Test
  void isStaleWhileTheApiIsUnreachableAndReadyOnceItIsBack() throws Exception {
    try (ApiProxy outage = ApiProxy.start(live.apiUrl())) {
      Opened opened = open("outage", new SvcProvider(config(outage, sk).build()));
      Client client = opened.client();
      await(() -> opened.provider().getClient().isStreamConnected(), "the stream is connected", Duration.ofSeconds(10));
      outage.stop();
      await(() -> client.getProviderState() == ProviderState.STALE, "stale", Duration.ofSeconds(10));
      // Reads go on from the cache.
      assertThat(client.getBooleanValue("everyone", false)).isTrue();
      outage.resume();
      await(() -> client.getProviderState() == ProviderState.READY, "ready again", Duration.ofSeconds(20));
      await(
          () -> {
            List<ProviderEvent> types = opened.events().stream().map(Event::type).toList();
            int stale = types.indexOf(ProviderEvent.PROVIDER_STALE);
            return stale >= 0 && types.subList(stale, types.size()).contains(ProviderEvent.PROVIDER_READY);
          },
          "a stale event, then a ready one",
          Duration.ofSeconds(5));
    }
  }

  @Test
  void isInErrorOnceItsKeyIsRevoked() throws Exception {
    JsonNode key = newKey();
    Opened opened = open("revoked", new SvcProvider(config(proxy, key.get("key").asText()).build()));
    assertThat(opened.client().getProviderState()).isEqualTo(ProviderState.READY);
    live.admin("DELETE", project + "/keys/" + key.get("id").asText(), null);
    await(() -> opened.client().getProviderState() == ProviderState.ERROR, "error", Duration.ofSeconds(10));
    await(() -> opened.heard(ProviderEvent.PROVIDER_ERROR), "the error event", Duration.ofSeconds(5));
    // Reads still answer from the cache.
    assertThat(opened.client().getBooleanValue("everyone", false)).isTrue();
  }
}
