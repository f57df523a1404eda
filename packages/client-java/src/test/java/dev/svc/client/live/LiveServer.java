package dev.svc.client.live;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A live service for the tests: the real console and api as child processes ({@code node
 * --import tsx apps/console/src/main.ts} and {@code apps/api/src/main.ts}, from the repository
 * root) on free loopback ports over one temp SQLite folder, with the settings of the shared
 * scenarios ({@code packages/client-conformance/server-env.json}).
 *
 * <p>{@link #start()} fails (it does not skip) when either process cannot be started or does
 * not become ready.
 */
public final class LiveServer implements AutoCloseable {
  public static final String ADMIN_TOKEN = "client-java-test-admin-token-0123456789";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final Path dataDir;
  private final Path logDir;
  private final int apiPort;
  private final int consolePort;
  private final List<Process> processes = new ArrayList<>();
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private Thread shutdownHook;

  /** An HTTP answer of the console or the api. */
  public record Response(int status, String text) {
    /** The body as JSON (null when it is not JSON). */
    public JsonNode json() {
      try {
        return MAPPER.readTree(text);
      } catch (IOException e) {
        return null;
      }
    }
  }

  private LiveServer(Path dataDir, Path logDir, int apiPort, int consolePort) {
    this.dataDir = dataDir;
    this.logDir = logDir;
    this.apiPort = apiPort;
    this.consolePort = consolePort;
  }

  /** The repository root (the folder holding {@code apps/} and {@code packages/}). */
  public static Path repoRoot() {
    return Path.of(System.getProperty("svc.repoRoot", "../..")).toAbsolutePath().normalize();
  }

  /** {@code packages/client-conformance}. */
  public static Path conformanceDir() {
    String configured = System.getProperty("svc.conformanceDir");
    Path dir = configured != null ? Path.of(configured) : repoRoot().resolve("packages/client-conformance");
    return dir.toAbsolutePath().normalize();
  }

  /** The api settings the shared scenarios assume. */
  public static Map<String, String> scenarioEnv() throws IOException {
    JsonNode env = MAPPER.readTree(conformanceDir().resolve("server-env.json").toFile());
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : env.properties()) {
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }

  /** Starts the console, waits until it is ready, then the api; throws when either fails. */
  public static LiveServer start() throws IOException, InterruptedException {
    Path dataDir = Files.createTempDirectory("svc-client-java-");
    Path logDir = Path.of(System.getProperty("svc.logDir", "target/live-logs")).toAbsolutePath();
    Files.createDirectories(logDir);
    LiveServer server = new LiveServer(dataDir, logDir, freePort(), freePort());
    server.shutdownHook = new Thread(server::stopProcesses, "live-server-stop");
    Runtime.getRuntime().addShutdownHook(server.shutdownHook);
    try {
      Map<String, String> env = new LinkedHashMap<>();
      env.put("DATA_DIR", dataDir.toString());
      env.put("HOST", "127.0.0.1");
      env.put("CONSOLE_ADMIN_TOKEN", ADMIN_TOKEN);
      env.put("LOG_LEVEL", "warn");
      env.put("SEED_DEMO", "false");
      env.put("SHUTDOWN_GRACE_MS", "2000");
      env.putAll(scenarioEnv());
      env.put("CONSOLE_PORT", Integer.toString(server.consolePort));
      server.launch("console", "apps/console/src/main.ts", env, server.consolePort);
      env.put("PORT", Integer.toString(server.apiPort));
      server.launch("api", "apps/api/src/main.ts", env, server.apiPort);
      return server;
    } catch (IOException | InterruptedException | RuntimeException e) {
      server.close();
      throw e;
    }
  }

  private void launch(String name, String entry, Map<String, String> env, int port)
      throws IOException, InterruptedException {
    Path log = logDir.resolve(name + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(System.getProperty("svc.node", "node"), "--import", "tsx", entry)
            .directory(repoRoot().toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    // Settings of the surrounding shell (a DATABASE_URL for the Postgres tests, say) must not leak in.
    for (String inherited : List.of("DATABASE_URL", "SERVICE_ROOT_KEY", "BASE_DOMAIN", "STREAM_MAX_AGE_S")) {
      builder.environment().remove(inherited);
    }
    builder.environment().putAll(env);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new IOException("cannot start the " + name + " (is node on the PATH?): " + e.getMessage(), e);
    }
    processes.add(process);
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    for (;;) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "the " + name + " exited with " + process.exitValue() + " before it was ready:\n" + tail(log));
      }
      try {
        HttpResponse<Void> res =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.discarding());
        if (res.statusCode() == 200) return;
      } catch (IOException notYet) {
        // not listening yet
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the " + name + " was not ready within " + READY_TIMEOUT + ":\n" + tail(log));
      }
      Thread.sleep(100);
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** {@code http://127.0.0.1:{port}} of the api. */
  public String apiUrl() {
    return "http://127.0.0.1:" + apiPort;
  }

  /** A management API call ({@code path} below {@code /api}), with the admin token. */
  public Response adminRaw(String method, String path, JsonNode body) throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + consolePort + "/api" + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + ADMIN_TOKEN);
    if (body != null && !body.isMissingNode()) {
      request.header("Content-Type", "application/json");
      request.method(method, HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(body)));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<String> res = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Response(res.statusCode(), res.body());
  }

  /** The same, failing unless the answer is 2xx. */
  public Response admin(String method, String path, Object body) throws IOException, InterruptedException {
    Response res = adminRaw(method, path, body == null ? null : MAPPER.valueToTree(body));
    if (res.status() < 200 || res.status() >= 300) {
      throw new IllegalStateException(method + " " + path + " answered " + res.status() + ": " + res.text());
    }
    return res;
  }

  /** {@code GET {apiUrl}/{ws}/v1/sync} with {@code apiKey}: the status. */
  public int syncStatus(String ws, String apiKey) throws IOException, InterruptedException {
    HttpResponse<Void> res =
        http.send(
            HttpRequest.newBuilder(URI.create(apiUrl() + "/" + ws + "/v1/sync"))
                .timeout(Duration.ofSeconds(10))
                .header("X-Service-API-Key", apiKey)
                .build(),
            HttpResponse.BodyHandlers.discarding());
    return res.statusCode();
  }

  /**
   * Waits until the api accepts a new key (it learns of it through its change feed, a few
   * milliseconds later; everything written before the key is then visible too).
   */
  public void awaitKey(String ws, String apiKey) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    for (;;) {
      int status = syncStatus(ws, apiKey);
      if (status == 200) return;
      if (System.nanoTime() > deadline) throw new IllegalStateException("the api never accepted a new key: " + status);
      Thread.sleep(25);
    }
  }

  /** A root URL where nothing listens. */
  public static String deadUrl() throws IOException {
    return "http://127.0.0.1:" + freePort();
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() {
    stopProcesses();
    if (shutdownHook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs anyway
      }
    }
    deleteTree(dataDir);
  }

  private synchronized void stopProcesses() {
    // The api first: it holds the streams; then the console.
    for (int i = processes.size() - 1; i >= 0; i--) {
      Process process = processes.get(i);
      if (!process.isAlive()) continue;
      process.destroy();
      try {
        if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
    processes.clear();
  }

  private static void deleteTree(Path root) {
    try (var paths = Files.walk(root)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort
    }
  }
}
