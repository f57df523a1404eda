package dev.svc.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * The calls that always go over the network — AB evaluation and the secret write API — as
 * opposed to reads, which the cache answers. Checks the arguments before any request, so a bad
 * call fails the same way whether or not the server is reachable. {@link ServiceClient}'s public
 * methods of the same names document what each throws.
 */
final class RemoteCalls {
  private final Transport transport;
  private final ServiceLogger logger;
  /** Asked at each call: a workload identity's key type is the newest key's. */
  private final BooleanSupplier publicKey;

  RemoteCalls(Transport transport, ServiceLogger logger, BooleanSupplier publicKey) {
    this.transport = transport;
    this.logger = logger;
    this.publicKey = publicKey;
  }

  Map<String, Boolean> evaluateAB(List<String> keys, String userId, Map<String, Object> attributes) {
    if (keys == null || keys.stream().anyMatch(Objects::isNull)) {
      throw new IllegalArgumentException("keys must be a list of strings");
    }
    if (userId == null) throw new IllegalArgumentException("userId is required");
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("flags", keys);
    body.put("user_id", userId);
    body.put("attributes", attributes == null ? Map.of() : attributes);
    byte[] json;
    try {
      json = Json.MAPPER.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("attributes cannot be written as JSON: " + e.getOriginalMessage(), e);
    }
    HttpResponse<byte[]> response =
        transport.send("POST", "/v1/flags/evaluate-ab", Map.of("Accept", "application/json"), json);
    expectOk(response, Transport.Operation.EVALUATE_AB);
    JsonNode results = Transport.json(response, "evaluateAB").get("results");
    if (results == null || !results.isObject()) {
      throw new ServiceException("evaluateAB: the answer has no results map");
    }
    Map<String, Boolean> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : results.properties()) {
      if (!entry.getValue().isBoolean()) {
        throw new ServiceException("evaluateAB: the result for " + entry.getKey() + " is not a boolean");
      }
      out.put(entry.getKey(), entry.getValue().booleanValue());
    }
    return out;
  }

  /** {@code PUT /v1/secrets/{key}}; {@code expectedVersion} null writes whatever the version. */
  void writeSecret(String operation, String key, String value, Integer expectedVersion) {
    requireSecretKey(operation);
    checkKey(key);
    if (value == null) throw new IllegalArgumentException("value is required");
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("value", value);
    if (expectedVersion != null) body.put("expected_version", expectedVersion);
    byte[] json;
    try {
      json = Json.MAPPER.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new ServiceException(operation + ": the request cannot be written", e);
    }
    HttpResponse<byte[]> response =
        transport.send("PUT", "/v1/secrets/" + pathSegment(key), Map.of("Accept", "application/json"), json);
    expectOk(response, Transport.Operation.WRITE);
    JsonNode version = Transport.json(response, operation).get("version");
    if (version == null || !version.isIntegralNumber()) {
      throw new ServiceException(operation + ": the answer has no version");
    }
    logger.debug(operation + ": " + key + " version " + version.longValue());
  }

  void deleteSecret(String key) {
    requireSecretKey("deleteSecret");
    checkKey(key);
    HttpResponse<byte[]> response = transport.send("DELETE", "/v1/secrets/" + pathSegment(key), Map.of(), null);
    expectOk(response, Transport.Operation.WRITE);
  }

  void deleteSecretVersion(String key, int version) {
    requireSecretKey("deleteSecretVersion");
    checkKey(key);
    if (version < 1) throw new IllegalArgumentException("version must be a positive integer");
    HttpResponse<byte[]> response =
        transport.send("DELETE", "/v1/secrets/" + pathSegment(key) + "/versions/" + version, Map.of(), null);
    expectOk(response, Transport.Operation.WRITE);
  }

  /** Percent-encodes everything but RFC 3986's unreserved characters. */
  static String pathSegment(String value) {
    StringBuilder out = new StringBuilder();
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~') {
        out.append(c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
            .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
      }
    }
    return out.toString();
  }

  /** A public key never reaches the write API: the server would refuse it anyway. */
  private void requireSecretKey(String operation) {
    if (publicKey.getAsBoolean()) throw new ServicePublicKeyException(operation);
  }

  private static void expectOk(HttpResponse<byte[]> response, Transport.Operation operation) {
    int status = response.statusCode();
    if (status < 200 || status >= 300) {
      throw Transport.errorOf(status, response.headers(), response.body(), operation);
    }
  }

  private static void checkKey(String key) {
    if (key == null || key.isEmpty()) throw new IllegalArgumentException("key must be a non-empty string");
  }
}
