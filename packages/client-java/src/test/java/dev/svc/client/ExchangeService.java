package dev.svc.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.zip.CRC32;

/**
 * A stand-in for the api's side of workload identity (the JDK's HTTP server on a loopback port):
 * the exchange ({@code POST /acme/v1/auth/token}, per the contract) minting checksummed keys that
 * expire, and {@code /v1/sync} and {@code /v1/stream} accepting only live keys — a stream ends
 * when its key expires, as the api's do, and resumes after {@code Last-Event-ID}. Beside it, the
 * platforms' token sources: a GCP metadata server ({@code /gcp/...}) and an Azure instance
 * metadata service ({@code /azure/...}).
 *
 * <p>For the timings a real api cannot be made to produce on demand: keys living a few seconds,
 * exchanges failing on cue. The end-to-end tests run the same flows against the real api.
 */
final class ExchangeService implements AutoCloseable {
  static final String IDENTITY_ID = "id-0f8c7a52";
  private static final String BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  private static final String END = "";

  /** How the exchange answers: a key (status 200), or that error. */
  record Verdict(int status, String code, String detail, Integer retryAfter) {
    static final Verdict OK = new Verdict(200, null, null, null);

    static Verdict error(int status, String code, String detail) {
      return new Verdict(status, code, detail, null);
    }
  }

  /** A sync or stream request: the key it carried and its {@code Last-Event-ID}. */
  record Seen(String path, String apiKey, String lastEventId) {}

  private record Change(long revision, String key, Object value) {}

  private record Stream(String apiKey, BlockingQueue<String> outbox) {}

  /** Lifetime of minted keys, in milliseconds (the real api's minimum is 60 s). */
  volatile long ttlMs = 2_000;
  volatile Function<JsonNode, Verdict> verify = body -> Verdict.OK;
  final List<JsonNode> exchanges = new CopyOnWriteArrayList<>();
  final List<Long> exchangedAt = new CopyOnWriteArrayList<>();
  final List<Seen> seen = new CopyOnWriteArrayList<>();
  /** Metadata requests: the path with query, and the headers. */
  final List<Map.Entry<String, Map<String, List<String>>>> metadataRequests = new CopyOnWriteArrayList<>();
  volatile int refused;
  volatile String gcpToken = "gcp-id-token";
  volatile String azureToken = "azure-access-token";

  private final Map<String, Long> keys = new LinkedHashMap<>();
  private final List<Change> changes = new ArrayList<>();
  private final Map<String, Object> configs = new LinkedHashMap<>();
  private final List<Stream> streams = new ArrayList<>();
  private long revision = 1;
  private final SecureRandom random = new SecureRandom();
  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();

  ExchangeService() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext(
        "/",
        exchange -> {
          try {
            handle(exchange);
          } catch (Exception e) {
            // the client went away
          } finally {
            exchange.close();
          }
        });
    server.start();
  }

  String origin() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  String baseUrl() {
    return origin() + "/acme";
  }

  synchronized List<String> minted() {
    return List.copyOf(keys.keySet());
  }

  /** Sets a config: a new revision, pushed to every open stream. */
  synchronized long set(String key, Object value) {
    Change change = new Change(++revision, key, value);
    changes.add(change);
    configs.put(key, value);
    for (Stream stream : streams) stream.outbox().add(frame(change));
    return change.revision();
  }

  /** Every key minted so far stops working (the identity was changed): streams end. */
  synchronized void revokeAll() {
    keys.replaceAll((key, expiry) -> 0L);
    for (Stream stream : streams) stream.outbox().add(END);
  }

  @Override
  public void close() {
    revokeAll();
    server.stop(0);
    executor.shutdownNow();
  }

  private synchronized boolean live(String apiKey) {
    return keys.getOrDefault(apiKey, 0L) > System.currentTimeMillis();
  }

  private synchronized long expiryOf(String apiKey) {
    return keys.getOrDefault(apiKey, 0L);
  }

  private void handle(HttpExchange exchange) throws Exception {
    String path = exchange.getRequestURI().getRawPath();
    if (path.startsWith("/gcp/") || path.startsWith("/azure/")) {
      metadata(exchange, path);
      return;
    }
    String route = path.replaceFirst("^/acme", "");
    if (route.equals("/v1/auth/token") && exchange.getRequestMethod().equals("POST")) {
      exchange(exchange);
      return;
    }
    String apiKey = header(exchange, "X-Service-API-Key");
    String lastEventId = header(exchange, "Last-Event-ID");
    seen.add(new Seen(route, apiKey, lastEventId));
    if (apiKey == null || !live(apiKey)) {
      refused++;
      json(exchange, 401, problem("unauthorized", "the key is not valid"), Map.of());
    } else if (route.equals("/v1/sync")) {
      json(exchange, 200, snapshot(), Map.of());
    } else if (route.equals("/v1/stream")) {
      stream(exchange, apiKey, lastEventId == null ? 0 : Long.parseLong(lastEventId));
    } else {
      json(exchange, 404, problem("not_found", null), Map.of());
    }
  }

  private void exchange(HttpExchange exchange) throws IOException {
    JsonNode body = Json.MAPPER.readTree(exchange.getRequestBody().readAllBytes());
    exchanges.add(body);
    exchangedAt.add(System.nanoTime());
    if (!IDENTITY_ID.equals(body.path("identity_id").asText())) {
      json(exchange, 401, problem("unauthorized", "identity"), Map.of());
      return;
    }
    Verdict verdict = verify.apply(body);
    if (verdict.status() != 200) {
      Map<String, String> headers =
          verdict.retryAfter() == null ? Map.of() : Map.of("Retry-After", verdict.retryAfter().toString());
      json(exchange, verdict.status(), problem(verdict.code(), verdict.detail()), headers);
      return;
    }
    String key = mintKey();
    long expiresAt = System.currentTimeMillis() + ttlMs;
    synchronized (this) {
      keys.put(key, expiresAt);
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("key", key);
    answer.put("kind", "secret");
    answer.put("expires_at", Instant.ofEpochMilli(expiresAt).toString());
    answer.put("expires_in", ttlMs / 1000.0);
    json(exchange, 200, answer, Map.of());
  }

  private synchronized Map<String, Object> snapshot() {
    Map<String, Object> snapshot = new LinkedHashMap<>();
    snapshot.put("revision", revision);
    snapshot.put("key_type", "sk");
    snapshot.put("configs", new LinkedHashMap<>(configs));
    snapshot.put("flags", Map.of());
    snapshot.put("secrets", Map.of());
    return snapshot;
  }

  private void stream(HttpExchange exchange, String apiKey, long after) throws IOException {
    Stream stream = new Stream(apiKey, new LinkedBlockingQueue<>());
    synchronized (this) {
      for (Change change : changes) if (change.revision() > after) stream.outbox().add(frame(change));
      streams.add(stream);
    }
    try {
      exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
      exchange.sendResponseHeaders(200, 0);
      OutputStream out = exchange.getResponseBody();
      write(out, "retry: 1000\n\n");
      while (System.currentTimeMillis() < expiryOf(apiKey)) {
        String item = stream.outbox().poll(20, TimeUnit.MILLISECONDS);
        if (item == null) continue;
        if (item.equals(END)) break;
        write(out, item);
      }
      out.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      synchronized (this) {
        streams.remove(stream);
      }
    }
  }

  private void metadata(HttpExchange exchange, String path) throws IOException {
    String query = exchange.getRequestURI().getRawQuery();
    metadataRequests.add(Map.entry(path + "?" + query, Map.copyOf(exchange.getRequestHeaders())));
    if (path.equals("/gcp/computeMetadata/v1/instance/service-accounts/default/identity")) {
      if (!"Google".equals(header(exchange, "Metadata-Flavor"))) {
        text(exchange, 403, "Missing Metadata-Flavor:Google header.");
      } else {
        text(exchange, 200, gcpToken);
      }
    } else if (path.equals("/azure/metadata/identity/oauth2/token")) {
      if (!"true".equals(header(exchange, "Metadata"))) {
        json(exchange, 400, Map.of("error", "invalid_request"), Map.of());
      } else {
        json(exchange, 200, Map.of("access_token", azureToken, "token_type", "Bearer"), Map.of());
      }
    } else {
      json(exchange, 404, Map.of("error", "not_found"), Map.of());
    }
  }

  private String mintKey() {
    StringBuilder body = new StringBuilder("svs_");
    for (int i = 0; i < 34; i++) body.append(BASE62.charAt(random.nextInt(62)));
    CRC32 crc = new CRC32();
    crc.update(body.toString().getBytes(StandardCharsets.US_ASCII));
    long n = crc.getValue();
    char[] digits = new char[6];
    for (int i = 5; i >= 0; i--) {
      digits[i] = BASE62.charAt((int) (n % 62));
      n /= 62;
    }
    return body.append(digits).toString();
  }

  private static String frame(Change change) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("revision", change.revision());
    data.put("kind", "config");
    data.put("key", change.key());
    data.put("op", "upsert");
    data.put("value", change.value());
    try {
      return "event: change\nid: " + change.revision() + "\ndata: " + Json.MAPPER.writeValueAsString(data) + "\n\n";
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, Object> problem(String code, String detail) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", "urn:svc:problem:" + code);
    body.put("title", code);
    body.put("code", code);
    if (detail != null) body.put("detail", detail);
    return body;
  }

  private static String header(HttpExchange exchange, String name) {
    return exchange.getRequestHeaders().getFirst(name);
  }

  private static void json(HttpExchange exchange, int status, Object body, Map<String, String> headers)
      throws IOException {
    headers.forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
    FakeService.send(exchange, status, "application/json", Json.MAPPER.writeValueAsString(body));
  }

  private static void text(HttpExchange exchange, int status, String body) throws IOException {
    FakeService.send(exchange, status, "text/plain", body);
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }
}
