package dev.svc.client;

import static dev.svc.client.FakeService.SK;
import static dev.svc.client.FakeService.send;
import static dev.svc.client.FakeService.snapshot;
import static dev.svc.client.FakeService.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The client against a scripted fake api: headers, conditional syncs, quarantine, stream reconnects. */
class FakeServiceTest extends FakeServiceCase {
  @Test
  void syncAsksForGzipAndDecodesIt() throws Exception {
    fake.on(
        "GET /v1/sync",
        (exchange, call) -> {
          byte[] body = snapshot(3, "{\"gz\":true}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
          java.io.ByteArrayOutputStream packed = new java.io.ByteArrayOutputStream();
          try (java.util.zip.GZIPOutputStream gz = new java.util.zip.GZIPOutputStream(packed)) {
            gz.write(body);
          }
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.getResponseHeaders().set("Content-Encoding", "gzip");
          exchange.getResponseHeaders().set("ETag", "\"v1-gzip\"");
          exchange.sendResponseHeaders(200, packed.size());
          try (OutputStream out = exchange.getResponseBody()) {
            packed.writeTo(out);
          }
        });
    try (ServiceClient client = ServiceClient.create(config().stream(false).build())) {
      assertThat(client.getFlag("gz")).isTrue();
      assertThat(fake.requests("GET /v1/sync").get(0).header("Accept-Encoding")).isEqualTo("gzip");
    }
  }

  @Test
  void syncSendsTheKeyAndUsesTheEtag() throws Exception {
    fake.on(
        "GET /v1/sync",
        (exchange, call) -> {
          if ("\"v1\"".equals(exchange.getRequestHeaders().getFirst("If-None-Match"))) {
            exchange.getResponseHeaders().set("ETag", "\"v1\"");
            send(exchange, 304, null, "");
          } else {
            exchange.getResponseHeaders().set("ETag", "\"v1\"");
            send(exchange, 200, "application/json", snapshot(5, "{\"a\":true}"));
          }
        });
    try (ServiceClient client = ServiceClient.create(config().stream(false).build())) {
      Instant first = client.getSyncedAt();
      Thread.sleep(5);
      client.sync();
      assertThat(client.getSyncedAt()).isAfter(first);
      assertThat(client.getFlag("a")).isTrue();
      List<FakeService.Request> syncs = fake.requests("GET /v1/sync");
      assertThat(syncs).hasSize(2);
      assertThat(syncs.get(0).header("X-Service-API-Key")).isEqualTo(SK);
      assertThat(syncs.get(0).header("User-Agent")).startsWith("svc-client-java/");
      assertThat(syncs.get(0).header("If-None-Match")).isNull();
      assertThat(syncs.get(1).header("If-None-Match")).isEqualTo("\"v1\"");
    }
  }

  @Test
  void aQuarantineRefusesSyncsLocallyUntilRetryAfter() throws Exception {
    fake.on(
        "GET /v1/sync",
        (exchange, call) -> {
          if (call == 2) {
            exchange.getResponseHeaders().set("Retry-After", "1");
            send(exchange, 429, "application/problem+json", "{\"status\":429,\"code\":\"sync_quarantined\"}");
          } else {
            send(exchange, 200, "application/json", snapshot(call, "{\"a\":true}"));
          }
        });
    try (ServiceClient client = ServiceClient.create(config().stream(false).build())) {
      assertThatThrownBy(client::sync)
          .isInstanceOfSatisfying(
              ServiceQuarantinedException.class,
              e -> {
                assertThat(e.getRetryAfter()).isEqualTo(Duration.ofSeconds(1));
                assertThat(e.getCode()).isEqualTo("sync_quarantined");
              });
      assertThatThrownBy(client::sync).isInstanceOf(ServiceQuarantinedException.class);
      assertThat(fake.count("GET /v1/sync")).isEqualTo(2); // the second refusal sent nothing
      assertThat(client.getFlag("a")).isTrue();
      Thread.sleep(1100);
      client.sync();
      assertThat(fake.count("GET /v1/sync")).isEqualTo(3);
    }
  }

  @Test
  void theStreamAppliesChangesAndResumesWithLastEventId() throws Exception {
    fake.on("GET /v1/sync", (exchange, call) -> send(exchange, 200, "application/json", snapshot(3, "{\"a\":false}")));
    fake.on(
        "GET /v1/stream",
        (exchange, call) -> {
          OutputStream out = FakeService.openStream(exchange);
          if (call == 1) {
            write(out, "retry: 1000\n\nevent: resync\ndata: {\"revision\":3}\n\n");
            write(out, "event: change\nid: 4\ndata: {\"revision\":4,\"kind\":\"flag\",\"key\":\"a\",\"op\":\"upsert\",\"value\":true}\n\n");
            // then the server ends the stream (its maximum age, say)
          } else {
            write(out, ": keep-alive\n\n");
            release.await(10, TimeUnit.SECONDS);
          }
        });
    try (ServiceClient client = ServiceClient.create(config().build())) {
      await(() -> fake.count("GET /v1/stream") >= 2, "the stream reconnects");
      assertThat(client.getFlag("a")).isTrue();
      List<FakeService.Request> streams = fake.requests("GET /v1/stream");
      assertThat(streams.get(0).header("Accept")).isEqualTo("text/event-stream");
      assertThat(streams.get(0).header("Last-Event-ID")).isEqualTo("3");
      assertThat(streams.get(1).header("Last-Event-ID")).isEqualTo("4");
      await(client::isStreamConnected, "connected again");
      // resync with the same revision: no sync
      assertThat(fake.count("GET /v1/sync")).isEqualTo(1);
      client.disconnectStream();
      assertThat(client.isStreamConnected()).isFalse();
    }
  }

  @Test
  void aResyncWithAnotherRevisionSyncs() throws Exception {
    fake.on(
        "GET /v1/sync",
        (exchange, call) -> send(exchange, 200, "application/json", snapshot(call, call == 1 ? "{}" : "{\"b\":true}")));
    fake.on(
        "GET /v1/stream",
        (exchange, call) -> {
          OutputStream out = FakeService.openStream(exchange);
          write(out, "event: resync\ndata: {\"revision\":9}\n\n");
          release.await(10, TimeUnit.SECONDS);
        });
    try (ServiceClient client = ServiceClient.create(config().build())) {
      await(() -> client.getFlag("b"), "the resync brings the new snapshot");
      assertThat(fake.count("GET /v1/sync")).isEqualTo(2);
    }
  }

  @Test
  void aSilentStreamIsDroppedAndReopened() throws Exception {
    fake.on("GET /v1/sync", (exchange, call) -> send(exchange, 200, "application/json", snapshot(1, "{}")));
    fake.on(
        "GET /v1/stream",
        (exchange, call) -> {
          FakeService.openStream(exchange).flush();
          release.await(10, TimeUnit.SECONDS);
        });
    try (ServiceClient client = ServiceClient.create(config().streamSilenceTimeout(Duration.ofMillis(300)).build())) {
      await(client::isStreamConnected, "connected");
      long connectedAt = System.nanoTime();
      await(() -> fake.count("GET /v1/stream") >= 2, "a second connection after the silence");
      assertThat(Duration.ofNanos(System.nanoTime() - connectedAt)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
    }
  }

  @Test
  void aStreamRefusedWith401DoesNotReconnect() throws Exception {
    fake.on("GET /v1/sync", (exchange, call) -> send(exchange, 200, "application/json", snapshot(1, "{}")));
    fake.on(
        "GET /v1/stream",
        (exchange, call) -> send(exchange, 401, "application/problem+json", "{\"code\":\"unauthorized\"}"));
    try (ServiceClient client = ServiceClient.create(config().build())) {
      await(() -> fake.count("GET /v1/stream") >= 1, "the stream request");
      Thread.sleep(400); // twenty initial delays
      assertThat(fake.count("GET /v1/stream")).isEqualTo(1);
      // The refusal stays the status's error (a refused key), the cache ready.
      assertThat(client.getStatus().error()).isInstanceOf(ServiceUnauthorizedException.class);
      assertThat(client.getStatus().ready()).isTrue();
      assertThat(client.isStreamConnected()).isFalse();
      client.connectStream(); // a new start tries again
      await(() -> fake.count("GET /v1/stream") == 2, "a new attempt");
    }
  }

  @Test
  void aStreamThatFailsIsRetriedWithBackoff() throws Exception {
    fake.on("GET /v1/sync", (exchange, call) -> send(exchange, 200, "application/json", snapshot(1, "{}")));
    fake.on("GET /v1/stream", (exchange, call) -> send(exchange, 503, "text/plain", "busy"));
    try (ServiceClient client = ServiceClient.create(config().build())) {
      await(() -> fake.count("GET /v1/stream") >= 3, "retries");
      assertThat(client.isStreamConnected()).isFalse();
    }
  }

  @Test
  void closeEndsARequestInFlight() throws Exception {
    fake.on("GET /v1/sync", (exchange, call) -> send(exchange, 200, "application/json", snapshot(1, "{}")));
    fake.on(
        "POST /v1/flags/evaluate-ab",
        (exchange, call) -> {
          release.await(10, TimeUnit.SECONDS);
          send(exchange, 200, "application/json", "{\"results\":{}}");
        });
    ServiceClient client = ServiceClient.create(config().stream(false).build());
    Thread closer =
        new Thread(
            () -> {
              try {
                Thread.sleep(200);
              } catch (InterruptedException e) {
                return;
              }
              client.close();
            });
    closer.start();
    long started = System.nanoTime();
    assertThatThrownBy(() -> client.evaluateAB(List.of("a"), "u", Map.of()))
        .isExactlyInstanceOf(ServiceException.class)
        .hasMessageContaining("closed");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    closer.join();
  }

  @Test
  void answersOutsideTheContractAreServiceExceptions() throws Exception {
    fake.on("GET /v1/sync", (exchange, call) -> send(exchange, 200, "application/json", snapshot(1, "{}")));
    fake.on(
        "POST /v1/flags/evaluate-ab",
        (exchange, call) -> {
          if (call == 1) send(exchange, 200, "application/json", "not json");
          else if (call == 2) send(exchange, 200, "application/json", "{\"results\":{\"a\":\"yes\"}}");
          else send(exchange, 500, "application/problem+json", "{\"code\":\"internal\"}");
        });
    fake.on("PUT /v1/secrets/a", (exchange, call) -> send(exchange, 200, "application/json", "{}"));
    try (ServiceClient client = ServiceClient.create(config().stream(false).build())) {
      for (int i = 0; i < 3; i++) {
        assertThatThrownBy(() -> client.evaluateAB(List.of("a"), "u", Map.of())).isExactlyInstanceOf(ServiceException.class);
      }
      assertThatThrownBy(() -> client.setSecret("a", "v")).isExactlyInstanceOf(ServiceException.class);
    }
  }

  @Test
  void aSyncBodyOutsideTheContractFailsCreate() throws Exception {
    fake.on("GET /v1/sync", (exchange, call) -> send(exchange, 200, "application/json", "{\"revision\":1}"));
    assertThatThrownBy(() -> ServiceClient.create(config().stream(false).build()))
        .isInstanceOf(ServiceInitException.class)
        .cause()
        .isExactlyInstanceOf(ServiceException.class);
  }

  record Pool(int max) {}

  @Test
  void typedReadsConvertWithoutCoercingKinds() throws Exception {
    fake.on(
        "GET /v1/sync",
        (exchange, call) ->
            send(
                exchange,
                200,
                "application/json",
                "{\"revision\":1,\"configs\":{\"pool\":{\"max\":10,\"extra\":true},\"n\":5,\"s\":\"dark\","
                    + "\"frac\":{\"max\":10.5},\"nullMax\":{\"max\":null},\"nothing\":null},\"flags\":{}}"));
    try (ServiceClient client = ServiceClient.create(config().stream(false).build())) {
      assertThat(client.getConfigAs("pool", Pool.class)).contains(new Pool(10));
      assertThat(client.getConfigAs("s", String.class)).contains("dark");
      assertThat(client.getConfigAs("n", Integer.class)).contains(5);
      assertThatThrownBy(() -> client.getConfigAs("n", String.class)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> client.getConfigAs("s", Integer.class)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> client.getConfigAs("frac", Pool.class)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> client.getConfigAs("nullMax", Pool.class)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> client.getConfigAs("s", Pool.class))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("\"s\" does not fit Pool");
      assertThat(client.getConfig("nothing")).hasValueSatisfying(v -> assertThat(v.isNull()).isTrue());
      assertThat(client.getConfigAs("nothing", String.class)).isEmpty();
      assertThat(client.getConfigAs("absent", String.class)).isEmpty();
      // Values handed out are copies: changing one leaves the cache alone.
      ((com.fasterxml.jackson.databind.node.ObjectNode) client.getConfig("pool").orElseThrow()).put("max", 99);
      ((com.fasterxml.jackson.databind.node.ObjectNode) client.getAllConfigs().get("pool")).put("max", 98);
      assertThat(client.getConfigAs("pool", Pool.class)).contains(new Pool(10));
      client.getAllFlags().put("x", true);
      assertThat(client.getFlag("x")).isFalse();
    }
  }
}
