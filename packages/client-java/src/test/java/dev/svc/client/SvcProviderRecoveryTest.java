package dev.svc.client;

import static dev.svc.client.FakeService.SK;
import static dev.svc.client.FakeService.send;
import static dev.svc.client.FakeService.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.openfeature.sdk.Client;
import dev.openfeature.sdk.OpenFeatureAPI;
import dev.openfeature.sdk.ProviderEvent;
import dev.openfeature.sdk.ProviderState;
import dev.svc.client.openfeature.SvcProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The provider over a client the application made, against the scripted fake api: a key the
 * stream refuses makes it ERROR, and a sync that is answered again makes it READY — what the
 * live api cannot be made to do with one key (a revoked key stays revoked).
 */
class SvcProviderRecoveryTest {
  private FakeService fake;
  private final OpenFeatureAPI api = OpenFeatureAPI.createIsolated();

  @BeforeEach
  void start() throws Exception {
    fake = new FakeService();
  }

  @AfterEach
  void stop() {
    api.shutdown();
    fake.close();
  }

  @Test
  void aRefusedKeyIsErrorAndAnAnsweredSyncReadyAgain() throws Exception {
    fake.on("GET /v1/sync", (exchange, call) -> send(exchange, 200, "application/json", snapshot(call, "{\"on\":true}")));
    fake.on(
        "GET /v1/stream",
        (exchange, call) -> send(exchange, 401, "application/problem+json", "{\"code\":\"unauthorized\"}"));
    try (ServiceClient serviceClient =
        ServiceClient.create(
            ServiceConfig.builder().baseUrl(fake.baseUrl()).apiKey(SK).logger(ServiceLogger.silent()).stream(false).build())) {
      Client client = api.getClient("app");
      List<ProviderEvent> events = new CopyOnWriteArrayList<>();
      for (ProviderEvent type : ProviderEvent.values()) client.on(type, details -> events.add(type));
      api.setProviderAndWait("app", new SvcProvider(serviceClient));
      assertThat(client.getProviderState()).isEqualTo(ProviderState.READY);

      serviceClient.connectStream();
      Await.until(() -> client.getProviderState() == ProviderState.ERROR, "error", Duration.ofSeconds(10));
      assertThat(client.getBooleanValue("on", false)).isTrue();
      serviceClient.sync();
      Await.until(() -> client.getProviderState() == ProviderState.READY, "ready again", Duration.ofSeconds(10));
      Await.until(() -> events.size() >= 3, "three events", Duration.ofSeconds(10));
      assertThat(events).containsExactly(ProviderEvent.PROVIDER_READY, ProviderEvent.PROVIDER_ERROR, ProviderEvent.PROVIDER_READY);

      // The application's client stays the application's: the provider's shutdown leaves it open.
      api.shutdown();
      serviceClient.sync();
    }
  }
}
