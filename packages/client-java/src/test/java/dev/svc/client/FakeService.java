package dev.svc.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A scripted stand-in for the api (the JDK's own HTTP server on a free loopback port), for the
 * behaviour the live scenarios cannot steer: exact headers, 304s, stream reconnects, silence.
 */
final class FakeService implements AutoCloseable {
  /** One request as the fake saw it. */
  record Request(String method, String path, Map<String, List<String>> headers) {
    String header(String name) {
      for (Map.Entry<String, List<String>> e : headers.entrySet()) {
        if (e.getKey().equalsIgnoreCase(name)) return e.getValue().get(0);
      }
      return null;
    }
  }

  @FunctionalInterface
  interface Handler {
    void handle(HttpExchange exchange, int call) throws Exception;
  }

  static final String WS = "/acme";
  static final String SK = "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN";

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final Map<String, Handler> handlers = new ConcurrentHashMap<>();
  private final Map<String, Integer> calls = new ConcurrentHashMap<>();

  FakeService() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getRawPath();
          String route = exchange.getRequestMethod() + " " + path.substring(WS.length());
          requests.add(new Request(exchange.getRequestMethod(), path, Map.copyOf(exchange.getRequestHeaders())));
          int call = calls.merge(route, 1, Integer::sum);
          Handler handler = handlers.get(route);
          try {
            if (handler == null) send(exchange, 404, "application/problem+json", "{\"code\":\"not_found\"}");
            else handler.handle(exchange, call);
          } catch (Exception e) {
            // the client went away
          } finally {
            exchange.close();
          }
        });
    server.start();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + WS;
  }

  /** Answers {@code route} ("GET /v1/sync"); {@code call} counts from 1. */
  FakeService on(String route, Handler handler) {
    handlers.put(route, handler);
    return this;
  }

  List<Request> requests(String route) {
    return requests.stream().filter(r -> (r.method() + " " + r.path()).equals(route.replaceFirst(" ", " " + WS))).toList();
  }

  int count(String route) {
    return requests(route).size();
  }

  static void send(HttpExchange exchange, int status, String contentType, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    if (contentType != null) exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  static String snapshot(long revision, String flags) {
    return "{\"revision\":" + revision + ",\"key_type\":\"sk\",\"configs\":{},\"flags\":" + flags + ",\"secrets\":{}}";
  }

  /** Starts an event stream: 200 with chunked text/event-stream. */
  static OutputStream openStream(HttpExchange exchange) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
    exchange.getResponseHeaders().set("Cache-Control", "no-cache");
    exchange.sendResponseHeaders(200, 0);
    return exchange.getResponseBody();
  }

  static void write(OutputStream out, String frames) throws IOException {
    out.write(frames.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
