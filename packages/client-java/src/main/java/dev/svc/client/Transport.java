package dev.svc.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.GZIPInputStream;

/**
 * Requests to the service over {@link HttpClient}: the API key header, a time limit per request,
 * the end of every request in flight on {@link #close()}, and the translation of problem+json
 * answers into the client's exceptions.
 */
final class Transport {
  static final String USER_AGENT = "svc-client-java/0.5.0";

  /** Which operation failed: decides how a 403 and a 429 read. */
  enum Operation {
    SYNC("sync"),
    STREAM("stream"),
    EVALUATE_AB("evaluateAB"),
    WRITE("write");

    final String label;

    Operation(String label) {
      this.label = label;
    }
  }

  private final String baseUrl;
  /** Replaced by {@link #rekey} (a workload identity's new key). */
  private volatile String apiKey;
  private final Duration requestTimeout;
  private final HttpClient http;
  private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  Transport(String baseUrl, String apiKey, Duration requestTimeout) {
    this.baseUrl = baseUrl;
    this.apiKey = apiKey;
    this.requestTimeout = requestTimeout;
    this.http =
        HttpClient.newBuilder()
            // Plain http: no h2c upgrade dance; https negotiates HTTP/2 through ALPN.
            .version(baseUrl.startsWith("https:") ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
            .connectTimeout(requestTimeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  boolean isClosed() {
    return closed;
  }

  /** Sends {@code key} from now on (a workload identity's new key). */
  void rekey(String key) {
    this.apiKey = key;
  }

  /**
   * Sends one request and waits for the whole answer; a {@link ServiceException} when none
   * arrives (network failure, time limit, closed client, interrupted thread).
   *
   * @param jsonBody the request body (sent as JSON), or null
   */
  HttpResponse<byte[]> send(String method, String path, Map<String, String> headers, byte[] jsonBody) {
    if (closed) throw new ServiceException("the client is closed");
    // HttpClient neither asks for nor decodes compressed bodies by itself.
    HttpRequest.Builder request =
        request(path, headers).header("Accept-Encoding", "gzip").timeout(requestTimeout);
    if (jsonBody != null) {
      request.header("Content-Type", "application/json");
      request.method(method, HttpRequest.BodyPublishers.ofByteArray(jsonBody));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    CompletableFuture<HttpResponse<byte[]>> future =
        http.sendAsync(request.build(), DECODED_BYTES);
    inFlight.add(future);
    try {
      if (closed) future.cancel(true);
      // The request's own time limit ends it first; this bound only guards against a hang.
      return future.get(requestTimeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
    } catch (CancellationException e) {
      throw new ServiceException("the client is closed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(true);
      throw new ServiceException(method + " " + path + " was interrupted", e);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw timedOut(method, path, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (closed) throw new ServiceException("the client is closed", cause);
      if (cause instanceof HttpTimeoutException) throw timedOut(method, path, cause);
      throw new ServiceException(method + " " + path + " failed: " + describe(cause), cause);
    } finally {
      inFlight.remove(future);
    }
  }

  /**
   * Opens {@code GET /v1/stream}: the future completes with the answer's head, and its body is a
   * publisher of byte chunks that the caller subscribes to (and cancels to end the connection).
   * No time limit: the stream watches its own silence.
   */
  CompletableFuture<HttpResponse<Flow.Publisher<List<ByteBuffer>>>> openStream(Map<String, String> headers) {
    if (closed) return CompletableFuture.failedFuture(new ServiceException("the client is closed"));
    return http.sendAsync(request("/v1/stream", headers).GET().build(), HttpResponse.BodyHandlers.ofPublisher());
  }

  /** The body's bytes, gunzipped when the answer says {@code Content-Encoding: gzip}. */
  static final HttpResponse.BodyHandler<byte[]> DECODED_BYTES =
      info -> {
        HttpResponse.BodySubscriber<byte[]> raw = HttpResponse.BodySubscribers.ofByteArray();
        boolean gzip =
            info.headers().firstValue("Content-Encoding").map(v -> v.trim().equalsIgnoreCase("gzip")).orElse(false);
        return gzip ? HttpResponse.BodySubscribers.mapping(raw, Transport::gunzip) : raw;
      };

  static byte[] gunzip(byte[] bytes) {
    if (bytes.length == 0) return bytes;
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("the gzip body does not decode", e);
    }
  }

  /** Ends every request in flight; later requests fail with "the client is closed". */
  void close() {
    closed = true;
    for (CompletableFuture<?> future : inFlight) future.cancel(true);
    // Java 21+ can shut the client's threads down at once; on 17 they end once it is unreachable.
    try {
      Method shutdownNow = HttpClient.class.getMethod("shutdownNow");
      shutdownNow.invoke(http);
    } catch (NoSuchMethodException onJava17) {
      // nothing to do
    } catch (ReflectiveOperationException | RuntimeException e) {
      // best effort
    }
  }

  private HttpRequest.Builder request(String path, Map<String, String> headers) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .header("X-Service-API-Key", apiKey)
            .header("User-Agent", USER_AGENT);
    headers.forEach(builder::header);
    return builder;
  }

  private ServiceException timedOut(String method, String path, Throwable cause) {
    return new ServiceException(
        method + " " + path + " timed out after " + requestTimeout.toMillis() + " ms", cause);
  }

  /** The body as JSON; a {@link ServiceException} when it is not JSON. */
  static JsonNode json(HttpResponse<byte[]> response, String what) {
    try {
      JsonNode node = Json.MAPPER.readTree(response.body());
      if (node == null || node.isMissingNode()) throw new IOException("empty body");
      return node;
    } catch (IOException e) {
      throw new ServiceException(what + ": the response is not JSON", response.statusCode(), null, e);
    }
  }

  /** The client exception for a non-2xx answer. */
  static ServiceException errorOf(int status, HttpHeaders headers, byte[] body, Operation operation) {
    String code = null;
    String detail = null;
    try {
      JsonNode problem = Json.MAPPER.readTree(body);
      if (problem != null && problem.isObject()) {
        code = problem.path("code").isTextual() ? problem.get("code").textValue() : null;
        detail = problem.path("detail").isTextual() ? problem.get("detail").textValue() : null;
      }
    } catch (IOException | RuntimeException notJson) {
      // a body that is not problem+json: status only
    }
    String message =
        operation.label
            + ": HTTP "
            + status
            + (code == null ? "" : " " + code)
            + (detail == null ? "" : ": " + detail);
    switch (status) {
      case 401:
        return new ServiceUnauthorizedException(message, status, code);
      case 402:
        return new ServiceBillingException(message, status, code);
      case 403:
        if ("public_key_forbidden".equals(code)) return new ServicePublicKeyException(operation.label);
        if (operation == Operation.EVALUATE_AB || "ab_addon_inactive".equals(code)) {
          return new ServiceAbAddonNotAvailableException(message, status, code);
        }
        return new ServiceException(message, status, code, null);
      case 404:
        return new ServiceNotFoundException(message, status, code);
      case 429: {
        Duration retryAfter = retryAfter(headers.firstValue("Retry-After").orElse(null), Instant.now());
        if (operation == Operation.SYNC || "sync_quarantined".equals(code)) {
          return new ServiceQuarantinedException(message, status, code, retryAfter);
        }
        return new ServiceRateLimitedException(message, status, code, retryAfter);
      }
      default:
        return new ServiceException(message, status, code, null);
    }
  }

  /** {@code Retry-After} as whole seconds: delta-seconds or an HTTP date; 1 s when absent or unreadable. */
  static Duration retryAfter(String header, Instant now) {
    if (header == null) return Duration.ofSeconds(1);
    String value = header.trim();
    if (!value.isEmpty() && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
      try {
        return Duration.ofSeconds(Long.parseLong(value));
      } catch (NumberFormatException tooLarge) {
        return Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L);
      }
    }
    try {
      Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      long millis = Duration.between(now, at).toMillis();
      return Duration.ofSeconds(Math.max(0, (millis + 999) / 1000));
    } catch (DateTimeParseException e) {
      return Duration.ofSeconds(1);
    }
  }

  static String describe(Throwable error) {
    if (error == null) return "unknown error";
    String message = error.getMessage();
    if (error instanceof ConnectException) {
      return "connection refused" + (message == null ? "" : " (" + message + ")");
    }
    if (message == null || message.isBlank()) message = error.getClass().getSimpleName();
    Throwable cause = error.getCause();
    if (cause != null && cause != error && cause.getMessage() != null) {
      message += " (" + cause.getMessage() + ")";
    }
    return message;
  }
}
