package dev.svc.client.live;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A forwarding proxy in front of the live api (the JDK's HTTP server and client), for what a
 * test must see or steer between a client and the real api: it counts requests by route (the
 * path after the workspace), holds a route's answers back for a while (a slow network), and
 * can go away and come back on the same port (an unreachable api). Bodies pass through as they
 * come, streams chunk by chunk.
 */
public final class ApiProxy implements AutoCloseable {
  /** Request headers the JDK's client sets itself (it refuses them). */
  private static final Set<String> OWN_HEADERS =
      Set.of("connection", "content-length", "expect", "host", "upgrade", "transfer-encoding", "keep-alive");

  private final String target;
  private final int port;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
  private final Map<String, Duration> holds = new ConcurrentHashMap<>();
  /** Upstream bodies being copied: closed when the proxy stops. */
  private final Set<InputStream> open = ConcurrentHashMap.newKeySet();
  private HttpServer server;
  private ExecutorService executor;

  private ApiProxy(String target, int port) {
    this.target = target;
    this.port = port;
  }

  /** A proxy on a free loopback port forwarding to {@code target} ({@code http://host:port}). */
  public static ApiProxy start(String target) throws IOException {
    ApiProxy proxy = new ApiProxy(target, LiveServer.freePort());
    proxy.listen();
    return proxy;
  }

  /** {@code http://127.0.0.1:{port}}: the same across {@link #stop()} and {@link #resume()}. */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /** Requests seen so far whose route (the path after the workspace) is {@code route}. */
  public int count(String route) {
    AtomicInteger count = counts.get(route);
    return count == null ? 0 : count.get();
  }

  /** Holds each request of {@code route} back for {@code hold} before forwarding it. */
  public void hold(String route, Duration hold) {
    holds.put(route, hold);
  }

  /** Closes the port and every connection: the api is unreachable until {@link #resume()}. */
  public synchronized void stop() {
    if (server == null) return;
    server.stop(0);
    executor.shutdownNow();
    for (InputStream body : open) close(body);
    server = null;
  }

  /** Listens again on the same port. */
  public synchronized void resume() throws IOException {
    if (server == null) listen();
  }

  @Override
  public void close() {
    stop();
  }

  private synchronized void listen() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    executor = Executors.newCachedThreadPool();
    server.setExecutor(executor);
    server.createContext("/", this::forward);
    server.start();
  }

  private void forward(HttpExchange exchange) {
    try {
      URI uri = exchange.getRequestURI();
      String path = uri.getRawPath();
      String route = path.indexOf('/', 1) > 0 ? path.substring(path.indexOf('/', 1)) : path;
      counts.computeIfAbsent(route, r -> new AtomicInteger()).incrementAndGet();
      Duration hold = holds.get(route);
      if (hold != null) Thread.sleep(hold.toMillis());
      byte[] body = exchange.getRequestBody().readAllBytes();
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create(target + path + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())))
              .method(
                  exchange.getRequestMethod(),
                  body.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
      exchange.getRequestHeaders().forEach(
          (name, values) -> {
            if (!OWN_HEADERS.contains(name.toLowerCase())) values.forEach(value -> request.header(name, value));
          });
      HttpResponse<InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
      response.headers().map().forEach(
          (name, values) -> {
            String lower = name.toLowerCase();
            if (!lower.equals("content-length") && !lower.equals("transfer-encoding") && !lower.equals("connection")) {
              exchange.getResponseHeaders().put(name, List.copyOf(values));
            }
          });
      long length = response.headers().firstValueAsLong("Content-Length").orElse(-2);
      int status = response.statusCode();
      // -1: no body; 0: chunked, as it comes (a stream).
      exchange.sendResponseHeaders(status, status == 304 || status == 204 || length == 0 ? -1 : Math.max(length, 0));
      InputStream upstream = response.body();
      open.add(upstream);
      try (upstream) {
        OutputStream out = exchange.getResponseBody();
        byte[] buffer = new byte[8192];
        for (int n; (n = upstream.read(buffer)) >= 0; ) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } finally {
        open.remove(upstream);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      // the client or the proxy went away
    } finally {
      exchange.close();
    }
  }

  private static void close(InputStream body) {
    try {
      body.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
