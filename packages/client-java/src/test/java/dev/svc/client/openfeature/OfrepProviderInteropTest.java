package dev.svc.client.openfeature;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import dev.openfeature.contrib.providers.ofrep.OfrepProvider;
import dev.openfeature.contrib.providers.ofrep.OfrepProviderOptions;
import dev.openfeature.sdk.Client;
import dev.openfeature.sdk.ErrorCode;
import dev.openfeature.sdk.EvaluationContext;
import dev.openfeature.sdk.FlagEvaluationDetails;
import dev.openfeature.sdk.ImmutableContext;
import dev.openfeature.sdk.MutableStructure;
import dev.openfeature.sdk.OpenFeatureAPI;
import dev.openfeature.sdk.Value;
import dev.svc.client.live.LiveServer;
import dev.svc.client.live.LiveServerExtension;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The OpenFeature Java SDK with the OFREP provider of java-sdk-contrib ({@code
 * dev.openfeature.contrib.providers:ofrep}, from Maven Central, unmodified) against the live api:
 * the same cases as the other languages' interop tests (packages/openfeature-interop). 20 (user,
 * flag) pairs equal {@code POST /v1/flags/evaluate-ab}, configs come back typed, what a key does
 * not see is the default with FLAG_NOT_FOUND, a bad key the default with an error.
 *
 * <p>The provider (0.0.2) has no initialization: with a bad key its state stays READY and every
 * evaluation answers the default with GENERAL.
 */
@ExtendWith(LiveServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OfrepProviderInteropTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final List<String> FLAGS = InteropProject.FLAGS;

  private final OpenFeatureAPI api = OpenFeatureAPI.getInstance();
  private final Map<String, Client> clients = new HashMap<>();
  private LiveServer live;
  private String ws;
  private String sk;
  private String pk;

  @BeforeAll
  void workspace(LiveServer live) throws Exception {
    this.live = live;
    ws = "ofrep-java-" + ProcessHandle.current().pid();
    String p = InteropProject.create(live, ws, "OFREP Java");
    sk = live.admin("POST", p + "/keys", Map.of("kind", "secret")).json().get("key").asText();
    pk = live.admin("POST", p + "/keys", Map.of("kind", "public")).json().get("key").asText();
    live.awaitKey(ws, sk);
    live.awaitKey(ws, pk);
  }

  @AfterAll
  void shutdown() {
    api.shutdown();
  }

  /** One provider per key and header, each in a domain of its own. */
  private Client client(String key, boolean bearer) {
    String domain = (bearer ? "bearer:" : "x-api-key:") + key;
    return clients.computeIfAbsent(
        domain,
        d -> {
          ImmutableMap<String, ImmutableList<String>> headers =
              bearer
                  ? ImmutableMap.of("Authorization", ImmutableList.of("Bearer " + key))
                  : ImmutableMap.of("X-API-Key", ImmutableList.of(key));
          api.setProviderAndWait(
              d,
              OfrepProvider.constructProvider(
                  OfrepProviderOptions.builder().baseUrl(live.apiUrl() + "/" + ws).headers(headers).build()));
          return api.getClient(d);
        });
  }

  private static EvaluationContext context(String user, String plan, String country) {
    return new ImmutableContext(user, Map.of("plan", new Value(plan), "country", new Value(country)));
  }

  private JsonNode evaluateAb(String user, String plan, String country) throws Exception {
    HttpResponse<String> res =
        InteropProject.evaluateAb(live, ws, sk, FLAGS, user, Map.of("plan", plan, "country", country));
    assertThat(res.statusCode()).isEqualTo(200);
    return MAPPER.readTree(res.body()).get("results");
  }

  @Test
  void twentyPairsEqualEvaluateAbWithReasons() throws Exception {
    Set<Boolean> answers = new HashSet<>();
    int pairs = 0;
    for (int u = 0; u < 4; u++) {
      String user = "user-" + (u * 7919 + 13);
      String plan = u % 2 == 0 ? "pro" : "free";
      String country = u % 3 == 0 ? "DE" : "FR";
      JsonNode expected = evaluateAb(user, plan, country);
      for (int f = 0; f < FLAGS.size(); f++) {
        String flag = FLAGS.get(f);
        // Both keys and both ways of sending them, in turn.
        Client client = client((u + f) % 2 == 0 ? sk : pk, f % 2 == 0);
        FlagEvaluationDetails<Boolean> details =
            client.getBooleanDetails(flag, false, context(user, plan, country));
        assertThat(details.getErrorCode()).as(flag + " " + user).isNull();
        assertThat(details.getValue()).as(flag + " " + user).isEqualTo(expected.get(flag).asBoolean());
        assertThat(details.getReason()).isIn("TARGETING_MATCH", "SPLIT", "DISABLED", "STATIC");
        assertThat(details.getVariant()).isEqualTo(details.getValue() ? "on" : "off");
        answers.add(details.getValue());
        pairs++;
      }
    }
    assertThat(pairs).isEqualTo(20);
    assertThat(answers).containsExactlyInAnyOrder(true, false);
  }

  @Test
  void configsComeBackTyped() {
    Client client = client(sk, true);
    EvaluationContext ctx = context("user-13", "pro", "DE");
    FlagEvaluationDetails<String> theme = client.getStringDetails("ui.theme", "none", ctx);
    assertThat(theme.getValue()).isEqualTo("dark");
    assertThat(theme.getReason()).isEqualTo("STATIC");
    assertThat(theme.getVariant()).isEqualTo("default");
    assertThat(client.getIntegerDetails("limits.rps", 1, ctx).getValue()).isEqualTo(40);
    assertThat(client.getDoubleDetails("ratio", 1.5, ctx).getValue()).isEqualTo(0.25);
    Value pool = client.getObjectDetails("db.pool", new Value(), ctx).getValue();
    Map<String, Object> expected = new LinkedHashMap<>();
    expected.put("max", 10);
    expected.put("hosts", List.of("a", "b"));
    assertThat(pool.asStructure().asObjectMap()).isEqualTo(expected);
  }

  @Test
  void whatAKeyDoesNotSeeIsTheDefaultWithFlagNotFound() {
    EvaluationContext ctx = new ImmutableContext("user-1");
    FlagEvaluationDetails<Boolean> unknown = client(sk, false).getBooleanDetails("no.such.flag", true, ctx);
    assertThat(unknown.getValue()).isTrue();
    assertThat(unknown.getErrorCode()).isEqualTo(ErrorCode.FLAG_NOT_FOUND);
    Value fallback = new Value(new MutableStructure(new HashMap<>(Map.of("none", new Value(true)))));
    FlagEvaluationDetails<Value> privateConfig = client(pk, false).getObjectDetails("db.pool", fallback, ctx);
    assertThat(privateConfig.getValue()).isEqualTo(fallback);
    assertThat(privateConfig.getErrorCode()).isEqualTo(ErrorCode.FLAG_NOT_FOUND);
    FlagEvaluationDetails<String> secret = client(pk, false).getStringDetails("stripe.key", "none", ctx);
    assertThat(secret.getValue()).isEqualTo("none");
    assertThat(secret.getErrorCode()).isEqualTo(ErrorCode.FLAG_NOT_FOUND);
  }

  @Test
  void aBadKeyAnswersTheDefaultWithAnError() {
    // The contract's example of a valid key: the right shape and checksum, never issued here.
    Client client = client("svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN", false);
    FlagEvaluationDetails<Boolean> details = client.getBooleanDetails("everyone", false, new ImmutableContext("u"));
    assertThat(details.getValue()).isFalse();
    assertThat(details.getErrorCode()).isEqualTo(ErrorCode.GENERAL);
    assertThat(details.getErrorMessage()).contains("authentication");
  }
}
