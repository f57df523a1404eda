package dev.svc.client.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.svc.client.ServiceClient;
import dev.svc.client.ServiceConfig;
import dev.svc.client.ServiceException;
import dev.svc.client.ServiceLogger;
import dev.svc.client.ServiceQuarantinedException;
import dev.svc.client.ServiceRateLimitedException;
import dev.svc.client.live.LiveServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Java runner of the shared client scenarios ({@code packages/client-conformance}): plays one
 * scenario file against a live api, as that package's README says, and throws an
 * {@link AssertionError} naming the first step that does not behave as stated.
 */
final class ScenarioRunner {
  /** Every call name a scenario may use (README: "Calls and arguments"). */
  static final List<String> CALLS =
      List.of(
          "getConfig",
          "getConfigAs",
          "getAllConfigs",
          "getFlag",
          "getAllFlags",
          "evaluateAB",
          "getSecret",
          "getSecretFilePath",
          "setSecret",
          "deleteSecret",
          "deleteSecretVersion",
          "getKeyType",
          "getSyncedAt",
          "isStreamConnected",
          "sync",
          "connectStream",
          "disconnectStream",
          "close");

  /** Every error type a scenario may expect (README: "Errors"). */
  static final List<String> ERROR_TYPES =
      List.of(
          "IllegalArgument",
          "Service",
          "ServiceInit",
          "ServiceUnauthorized",
          "ServiceNotFound",
          "ServicePublicKey",
          "ServiceSecretNotFound",
          "ServiceAbAddonNotAvailable",
          "ServiceBilling",
          "ServiceRateLimited",
          "ServiceQuarantined");

  /** The {@code Pool} type of {@code getConfigAs}. */
  record Pool(int max) {}

  /** Named target types of {@code getConfigAs} (README: "Types for getConfigAs"). */
  static final Map<String, Class<?>> TYPES = Map.of("Pool", Pool.class, "String", String.class);

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z][A-Za-z0-9_]*)\\}");
  private static final long POLL_MS = 25;
  private static final AtomicInteger WS_COUNTER = new AtomicInteger();

  private final LiveServer live;
  private final String deadUrl;

  ScenarioRunner(LiveServer live, String deadUrl) {
    this.live = live;
    this.deadUrl = deadUrl;
  }

  /** What a call did: returned {@code value}, or threw {@code error}. */
  private record Outcome(boolean ok, Object value, Throwable error) {
    static Outcome of(ThrowingSupplier call) {
      try {
        return new Outcome(true, call.get(), null);
      } catch (Exception e) {
        return new Outcome(false, null, e);
      }
    }
  }

  @FunctionalInterface
  private interface ThrowingSupplier {
    Object get() throws Exception;
  }

  /** Runs one scenario; closes every client it created, whatever happened. */
  void run(JsonNode scenario) throws Exception {
    String name = scenario.path("name").asText();
    String ws = ("cfj-" + name + "-" + ProcessHandle.current().pid() + "-" + WS_COUNTER.incrementAndGet());
    ws = ws.substring(0, Math.min(ws.length(), 60)).replaceAll("-+$", "");
    Map<String, Object> vars = new LinkedHashMap<>();
    vars.put("ws", ws);
    vars.put("apiUrl", live.apiUrl());
    vars.put("deadUrl", deadUrl);
    Map<String, ServiceClient> clients = new LinkedHashMap<>();
    try {
      for (JsonNode call : scenario.path("setup")) admin(call, vars);
      int index = 0;
      for (JsonNode step : scenario.path("steps")) {
        try {
          runStep(step, vars, clients);
        } catch (AssertionError | Exception e) {
          throw new AssertionError(name + " step " + index + ": " + e.getMessage() + "\n  step: " + step, e);
        }
        index++;
      }
    } finally {
      for (ServiceClient client : clients.values()) client.close();
    }
  }

  private void admin(JsonNode call, Map<String, Object> vars) throws Exception {
    String method = fill(call.path("method"), vars).asText();
    String path = fill(call.path("path"), vars).asText();
    JsonNode body = call.has("body") ? fill(call.get("body"), vars) : null;
    LiveServer.Response res = live.adminRaw(method, path, body);
    if (res.status() < 200 || res.status() >= 300) {
      throw new AssertionError(method + " " + path + " answered " + res.status() + ": " + res.text());
    }
    JsonNode save = call.path("save");
    if (!save.isObject()) return;
    JsonNode answer = res.json();
    for (Map.Entry<String, JsonNode> entry : save.properties()) {
      JsonNode value = answer == null ? null : answer.get(entry.getValue().asText());
      if (value == null) throw new AssertionError("the answer has no field " + entry.getValue().asText() + ": " + res.text());
      String text = value.isTextual() ? value.textValue() : value.toString();
      vars.put(entry.getKey(), text);
      if (text.startsWith("svs_") || text.startsWith("svp_")) live.awaitKey((String) vars.get("ws"), text);
    }
  }

  private void runStep(JsonNode step, Map<String, Object> vars, Map<String, ServiceClient> clients) throws Exception {
    if (step.has("admin")) {
      admin(step.get("admin"), vars);
      return;
    }
    if (step.has("sleepMs")) {
      Thread.sleep(step.get("sleepMs").asLong());
      return;
    }
    if (step.has("assertFileAbsent")) {
      String path = fill(step.get("assertFileAbsent"), vars).asText();
      if (Files.exists(Path.of(path))) throw new AssertionError(path + " still exists");
      return;
    }
    JsonNode expect = step.has("expect") ? step.get("expect") : JsonNodeFactory.instance.objectNode();
    if (step.has("create")) {
      JsonNode config = fill(step.path("config"), vars);
      Outcome outcome = Outcome.of(() -> ServiceClient.create(clientConfig(config)));
      check(outcome, expect, vars);
      if (outcome.ok()) {
        ServiceClient previous = clients.put(step.get("create").asText(), (ServiceClient) outcome.value());
        if (previous != null) previous.close();
      }
      return;
    }
    if (!step.has("call") || !step.has("client")) {
      throw new AssertionError("a step needs admin, sleepMs, assertFileAbsent, create, or client + call");
    }
    ServiceClient client = clients.get(step.get("client").asText());
    if (client == null) throw new AssertionError("no client named " + step.get("client").asText());
    String call = step.get("call").asText();
    JsonNode args = step.has("args") ? fill(step.get("args"), vars) : JsonNodeFactory.instance.arrayNode();

    Outcome outcome;
    if (step.has("repeat")) {
      // Until the expected outcome, or any failure (which check() then judges).
      int repeat = step.get("repeat").asInt();
      outcome = Outcome.of(() -> invoke(client, call, args));
      for (int i = 1; i < repeat && outcome.ok() && !matches(outcome, expect, vars); i++) {
        outcome = Outcome.of(() -> invoke(client, call, args));
      }
    } else if (step.has("eventually")) {
      JsonNode eventually = step.get("eventually");
      long deadline = System.nanoTime() + Duration.ofMillis(eventually.path("timeoutMs").asLong(5000)).toNanos();
      boolean syncFirst = eventually.path("sync").asBoolean(false);
      for (;;) {
        if (syncFirst) {
          try {
            client.sync();
          } catch (RuntimeException ignored) {
            // README: ignoring what that throws
          }
        }
        outcome = Outcome.of(() -> invoke(client, call, args));
        if (matches(outcome, expect, vars) || System.nanoTime() > deadline) break;
        Thread.sleep(POLL_MS);
      }
    } else {
      outcome = Outcome.of(() -> invoke(client, call, args));
    }
    check(outcome, expect, vars);
    if (step.has("save") && outcome.ok()) vars.put(step.get("save").asText(), unwrap(outcome.value()));
  }

  private static ServiceConfig clientConfig(JsonNode config) {
    ServiceConfig.Builder builder = ServiceConfig.builder().logger(ServiceLogger.silent());
    for (Map.Entry<String, JsonNode> field : config.properties()) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "baseUrl" -> builder.baseUrl(value.asText());
        case "apiKey" -> builder.apiKey(value.asText());
        case "stream" -> builder.stream(value.asBoolean());
        case "cacheTtlMs" -> builder.cacheTtl(Duration.ofMillis(value.asLong()));
        default -> throw new AssertionError("unknown config field " + field.getKey());
      }
    }
    return builder.build();
  }

  /** Calls one client operation with the scenario's language-neutral arguments. */
  static Object invoke(ServiceClient client, String call, JsonNode a) throws Exception {
    switch (call) {
      case "getConfig":
        return client.getConfig(a.get(0).asText());
      case "getConfigAs": {
        Class<?> type = TYPES.get(a.get(1).asText());
        if (type == null) throw new AssertionError("unknown type " + a.get(1));
        return client.getConfigAs(a.get(0).asText(), type);
      }
      case "getAllConfigs":
        return client.getAllConfigs();
      case "getFlag":
        return a.size() > 1 ? client.getFlag(a.get(0).asText(), a.get(1).asBoolean()) : client.getFlag(a.get(0).asText());
      case "getAllFlags":
        return client.getAllFlags();
      case "evaluateAB": {
        List<String> keys = new ArrayList<>();
        a.get(0).forEach(k -> keys.add(k.asText()));
        @SuppressWarnings("unchecked")
        Map<String, Object> attributes = MAPPER.convertValue(a.get(2), Map.class);
        return client.evaluateAB(keys, a.get(1).asText(), attributes);
      }
      case "getSecret":
        return client.getSecret(a.get(0).asText());
      case "getSecretFilePath":
        return client.getSecretFilePath(a.get(0).asText());
      case "setSecret":
        if (a.size() > 2) client.setSecret(a.get(0).asText(), a.get(1).asText(), a.get(2).asInt());
        else client.setSecret(a.get(0).asText(), a.get(1).asText());
        return null;
      case "deleteSecret":
        client.deleteSecret(a.get(0).asText());
        return null;
      case "deleteSecretVersion":
        client.deleteSecretVersion(a.get(0).asText(), a.get(1).asInt());
        return null;
      case "getKeyType":
        return client.getKeyType();
      case "getSyncedAt":
        return client.getSyncedAt();
      case "isStreamConnected":
        return client.isStreamConnected();
      case "sync":
        client.sync();
        return null;
      case "connectStream":
        client.connectStream();
        return null;
      case "disconnectStream":
        client.disconnectStream();
        return null;
      case "close":
        client.close();
        return null;
      default:
        throw new AssertionError("unknown call " + call);
    }
  }

  private static boolean matches(Outcome outcome, JsonNode expect, Map<String, Object> vars) {
    try {
      check(outcome, expect, vars);
      return true;
    } catch (AssertionError | Exception e) {
      return false;
    }
  }

  private static void check(Outcome outcome, JsonNode expect, Map<String, Object> vars) throws IOException {
    if (expect.has("error")) {
      if (outcome.ok()) {
        throw new AssertionError("expected " + expect.get("error").path("type").asText() + ", got the result " + show(outcome.value()));
      }
      checkError(outcome.error(), expect.get("error"));
      return;
    }
    if (!outcome.ok()) throw new AssertionError("unexpected error: " + describe(outcome.error()), outcome.error());
    Object value = outcome.value();
    if (expect.path("empty").asBoolean(false)) {
      if (!(value instanceof Optional<?> optional) || optional.isPresent()) {
        throw new AssertionError("expected Optional.empty(), got " + show(value));
      }
    }
    if (expect.has("result")) {
      if (value instanceof Optional<?> optional && optional.isEmpty()) {
        throw new AssertionError("expected " + expect.get("result") + ", got Optional.empty()");
      }
      JsonNode actual = asJson(unwrap(value));
      if (!sameJson(actual, expect.get("result"))) {
        throw new AssertionError("expected " + expect.get("result") + ", got " + actual);
      }
    }
    if (expect.has("instant")) checkInstant(unwrap(value), expect.get("instant"), vars);
    if (expect.has("file")) checkFile(unwrap(value), expect.get("file"));
  }

  private static void checkInstant(Object value, JsonNode instant, Map<String, Object> vars) {
    if (!(value instanceof Instant at)) throw new AssertionError("expected an Instant, got " + show(value));
    if (instant.has("withinMsOfNow")) {
      long ms = instant.get("withinMsOfNow").asLong();
      if (Math.abs(Duration.between(at, Instant.now()).toMillis()) > ms) {
        throw new AssertionError(at + " is not within " + ms + " ms of now");
      }
    }
    if (instant.has("after")) {
      Object before = vars.get(instant.get("after").asText());
      if (!(before instanceof Instant earlier)) throw new AssertionError(instant.get("after") + " is not a saved instant");
      if (!at.isAfter(earlier)) throw new AssertionError(at + " is not after " + earlier);
    }
  }

  private static void checkFile(Object value, JsonNode file) throws IOException {
    if (!(value instanceof String text) || !Path.of(text).isAbsolute()) {
      throw new AssertionError("expected an absolute path, got " + show(value));
    }
    Path path = Path.of(text);
    if (!Files.isRegularFile(path)) throw new AssertionError(path + " does not exist");
    String content = Files.readString(path, StandardCharsets.UTF_8);
    if (!content.equals(file.path("content").asText())) throw new AssertionError(path + " holds " + show(content));
    boolean posix = path.getFileSystem().supportedFileAttributeViews().contains("posix");
    if (posix && file.has("mode")) {
      String mode = mode(Files.getPosixFilePermissions(path));
      if (!mode.equals(file.get("mode").asText())) throw new AssertionError(path + " has mode " + mode);
    }
    if (posix && file.has("dirMode")) {
      String mode = mode(Files.getPosixFilePermissions(path.getParent()));
      if (!mode.equals(file.get("dirMode").asText())) throw new AssertionError(path.getParent() + " has mode " + mode);
    }
  }

  private static void checkError(Throwable error, JsonNode expected) {
    String type = errorType(error);
    String wanted = expected.path("type").asText();
    if (!type.equals(wanted)) throw new AssertionError("expected " + wanted + ", got " + type + ": " + describe(error), error);
    if (expected.has("code")) {
      String code = error instanceof ServiceException s ? s.getCode() : null;
      if (!expected.get("code").asText().equals(code)) {
        throw new AssertionError("expected code " + expected.get("code").asText() + ", got " + code + ": " + describe(error));
      }
    }
    if (expected.has("retryAfterAtLeast")) {
      Duration retryAfter =
          error instanceof ServiceRateLimitedException r
              ? r.getRetryAfter()
              : error instanceof ServiceQuarantinedException q ? q.getRetryAfter() : null;
      long atLeast = expected.get("retryAfterAtLeast").asLong();
      if (retryAfter == null || retryAfter.toSeconds() < atLeast) {
        throw new AssertionError("expected retryAfter >= " + atLeast + " s, got " + retryAfter);
      }
    }
    if (expected.has("cause")) {
      if (error.getCause() == null) throw new AssertionError("expected a cause, got none: " + describe(error));
      checkError(error.getCause(), expected.get("cause"));
    }
  }

  /** The language-neutral name of an error (README: "Errors"). */
  static String errorType(Throwable error) {
    if (error instanceof ServiceException) {
      if (error.getClass() == ServiceException.class) return "Service";
      return error.getClass().getSimpleName().replaceFirst("Exception$", "");
    }
    if (error instanceof IllegalArgumentException) return "IllegalArgument";
    return "unexpected " + error.getClass().getName();
  }

  private static String describe(Throwable error) {
    if (error == null) return "null";
    String cause = error.getCause() == null ? "" : " (cause: " + describe(error.getCause()) + ")";
    return error.getClass().getSimpleName() + ": " + error.getMessage() + cause;
  }

  private static Object unwrap(Object value) {
    return value instanceof Optional<?> optional ? optional.orElse(null) : value;
  }

  private static JsonNode asJson(Object value) {
    if (value instanceof JsonNode node) return node;
    return MAPPER.valueToTree(value);
  }

  /** JSON equality; objects without key order (Jackson's), numbers by value (1 equals 1.0). */
  static boolean sameJson(JsonNode actual, JsonNode expected) {
    Comparator<JsonNode> byValue =
        (a, b) -> {
          if (a.equals(b)) return 0;
          if (a.isNumber() && b.isNumber()) return a.decimalValue().compareTo(b.decimalValue());
          return 1;
        };
    return actual != null && actual.equals(byValue, expected);
  }

  private static String mode(Set<PosixFilePermission> permissions) {
    int bits = 0;
    for (PosixFilePermission p : permissions) bits |= 1 << (8 - p.ordinal());
    return Integer.toOctalString(bits);
  }

  private static String show(Object value) {
    if (value == null) return "null";
    if (value instanceof Instant || value instanceof Optional<?>) return value.toString();
    try {
      return MAPPER.writeValueAsString(value);
    } catch (IOException e) {
      return String.valueOf(value);
    }
  }

  /** Replaces {@code {name}} in every string of {@code node}; an unknown name is an error. */
  static JsonNode fill(JsonNode node, Map<String, Object> vars) {
    if (node == null) return null;
    if (node.isTextual()) {
      Matcher m = PLACEHOLDER.matcher(node.textValue());
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        String name = m.group(1);
        if (!vars.containsKey(name)) throw new AssertionError("unknown placeholder {" + name + "}");
        m.appendReplacement(out, Matcher.quoteReplacement(String.valueOf(vars.get(name))));
      }
      m.appendTail(out);
      return TextNode.valueOf(out.toString());
    }
    if (node.isArray()) {
      var array = JsonNodeFactory.instance.arrayNode();
      node.forEach(child -> array.add(fill(child, vars)));
      return array;
    }
    if (node.isObject()) {
      ObjectNode object = JsonNodeFactory.instance.objectNode();
      for (Map.Entry<String, JsonNode> e : node.properties()) object.set(e.getKey(), fill(e.getValue(), vars));
      return object;
    }
    return node;
  }
}
