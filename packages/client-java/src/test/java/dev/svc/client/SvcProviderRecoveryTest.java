package dev.svc.client;

import static dev.svc.client.FakeService.send;
import static dev.svc.client.FakeService.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.openfeature.sdk.Client;
import dev.openfeature.sdk.OpenFeatureAPI;
import dev.openfeature.sdk.ProviderEvent;
import dev.openfeature.sdk.ProviderState;
import dev.svc.client.openfeature.SvcProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The provider over a client the application made, against the scripted fake api: a key the
 * stream refuses makes it ERROR, and a sync that is answered again makes it READY — what the
 * live api cannot be made to do with one key (a revoked key stays revoked).
 */
class SvcProviderRecoveryTest extends FakeServiceCase {
  private final OpenFeatureAPI api = OpenFeatureAPI.createIsolated();

  @AfterEach
  void shutdown() {
    api.shutdown();
  }

  @Test
  void aRefusedKeyIsErrorAndAnAnsweredSyncReadyAgain() throws Exception {
    fake.on("GET /v1/sync", (exchange, call) -> send(exchange, 200, "application/json", snapshot(call, "{\"on\":true}")));
    fake.on(
        "GET /v1/stream",
        (exchange, call) -> send(exchange, 401, "application/problem+json", "{\"code\":\"unauthorized\"}"));
    try (ServiceClient serviceClient =
        ServiceClient.create(config().stream(false).build())) {
      Client client = api.getClient("app");
      List<ProviderEvent> events = new CopyOnWriteArrayList<>();
      for (ProviderEvent type : ProviderEvent.values()) client.on(type, details -> events.add(type));
      api.setProviderAndWait("app", new SvcProvider(serviceClient));
      assertThat(client.getProviderState()).isEqualTo(ProviderState.READY);

      serviceClient.connectStream();
      await(() -> client.getProviderState() == ProviderState.ERROR, "error");
      assertThat(client.getBooleanValue("on", false)).isTrue();
      serviceClient.sync();
      await(() -> client.getProviderState() == ProviderState.READY, "ready again");
      await(() -> events.size() >= 3, "three events");
      assertThat(events).containsExactly(ProviderEvent.PROVIDER_READY, ProviderEvent.PROVIDER_ERROR, ProviderEvent.PROVIDER_READY);

      // The application's client stays the application's: the provider's shutdown leaves it open.
      api.shutdown();
      serviceClient.sync();
    }
  }
}
