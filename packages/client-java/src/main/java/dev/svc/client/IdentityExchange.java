package dev.svc.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The exchange: {@code POST {baseUrl}/v1/auth/token} with the identity's id and the workload's
 * proof (no API key header), answered with a short-lived key of the usual shape.
 */
final class IdentityExchange {
  /** A key the exchange minted; its lifetime counts from the moment the answer arrived. */
  record MintedKey(String key, String keyType, Duration lifetime) {
    /** Never shows the key. */
    @Override
    public String toString() {
      return "MintedKey[keyType=" + keyType + ", lifetime=" + lifetime + "]";
    }
  }

  private static final String WHAT = "identity exchange";

  private IdentityExchange() {}

  /**
   * Exchanges {@code credential} for a key.
   *
   * @throws ServiceUnauthorizedException on 401 (the message names the failed check)
   * @throws ServiceRateLimitedException on 429 (with {@code Retry-After})
   * @throws ServiceException for anything else ({@code upstream_unavailable} on 502, a network
   *     failure, a malformed answer)
   */
  static MintedKey exchange(
      IdentityHttp http, String baseUrl, String identityId, Map<String, Object> credential) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("identity_id", identityId);
    body.putAll(credential);
    byte[] json;
    try {
      json = Json.MAPPER.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new ServiceException(WHAT + ": the request cannot be written", e);
    }
    IdentityHttp.Answer answer =
        http.send(
            WHAT,
            HttpRequest.newBuilder(URI.create(baseUrl + "/v1/auth/token"))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(json)));
    JsonNode minted;
    try {
      minted = Json.MAPPER.readTree(answer.body());
    } catch (IOException e) {
      minted = null;
    }
    if (answer.status() != 200) {
      String code = text(minted, "code");
      String detail = text(minted, "detail");
      String message =
          WHAT + ": HTTP " + answer.status() + (code == null ? "" : " " + code) + (detail == null ? "" : ": " + detail);
      if (answer.status() == 401) throw new ServiceUnauthorizedException(message, 401, code);
      if (answer.status() == 429) {
        Duration retryAfter =
            Transport.retryAfter(answer.headers().firstValue("Retry-After").orElse(null), Instant.now());
        throw new ServiceRateLimitedException(message, 429, code, retryAfter);
      }
      throw new ServiceException(message, answer.status(), code, null);
    }
    String key = minted != null && minted.path("key").isTextual() ? minted.get("key").textValue() : null;
    JsonNode expiresIn = minted == null ? null : minted.get("expires_in");
    String keyType = ApiKeys.keyTypeOf(key).orElse(null);
    if (keyType == null || expiresIn == null || !expiresIn.isNumber() || !(expiresIn.doubleValue() > 0)) {
      throw new ServiceException(WHAT + ": the answer has no valid key and expires_in");
    }
    return new MintedKey(key, keyType, Duration.ofMillis(Math.round(expiresIn.doubleValue() * 1000)));
  }

  private static String text(JsonNode node, String field) {
    return node != null && node.path(field).isTextual() ? node.get(field).textValue() : null;
  }
}
