package dev.svc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A workload identity's key over its life, against the exchange stand-in on a real socket (keys
 * living a few seconds): the exchange at {@code create()}, the refresh at {@code refreshAt} of
 * the key's life, the stream reconnecting under each new key with {@code Last-Event-ID} so no
 * change is missed, backoff and {@code Retry-After} when the exchange fails, and a key that
 * expired (or was revoked) before a refresh succeeded not stopping the client.
 */
class IdentityRefreshTest {
  private ExchangeService service;
  private final List<ServiceClient> clients = new ArrayList<>();
  private final List<String> errors = new CopyOnWriteArrayList<>();
  private final ServiceLogger logger =
      new ServiceLogger() {
        @Override
        public void debug(String message) {}

        @Override
        public void info(String message) {}

        @Override
        public void error(String message, Throwable cause) {
          errors.add(message);
        }
      };

  @BeforeEach
  void start() throws Exception {
    service = new ExchangeService();
  }

  @AfterEach
  void stop() {
    clients.forEach(ServiceClient::close);
    service.close();
  }

  private ServiceClient create(double refreshAt, Consumer<ServiceConfig.Builder> more) {
    WorkloadIdentity identity =
        WorkloadIdentity.builder(ExchangeService.IDENTITY_ID, IdentityMethod.OIDC)
            .token(() -> "a-token")
            .refreshAt(refreshAt)
            .retry(Duration.ofMillis(100), Duration.ofMillis(400))
            .build();
    ServiceConfig.Builder config =
        ServiceConfig.builder()
            .baseUrl(service.baseUrl())
            .identity(identity)
            .logger(logger)
            .reconnectInitialDelay(Duration.ofMillis(50))
            .reconnectMaxDelay(Duration.ofMillis(200));
    more.accept(config);
    ServiceClient client = ServiceClient.create(config.build());
    clients.add(client);
    return client;
  }

  private ServiceClient create(double refreshAt) {
    return create(refreshAt, c -> {});
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    Await.until(condition, what, Duration.ofSeconds(10));
  }

  /** Fails every exchange with {@code verdict} until the returned runnable runs. */
  private Runnable failExchanges(ExchangeService.Verdict verdict) {
    service.verify = body -> verdict;
    return () -> service.verify = body -> ExchangeService.Verdict.OK;
  }

  private static Optional<Integer> intConfig(ServiceClient client, String key) {
    return client.getConfig(key).map(JsonNode::asInt);
  }

  private List<ExchangeService.Seen> streams() {
    return service.seen.stream().filter(s -> s.path().equals("/v1/stream")).toList();
  }

  @Test
  void exchangesAtCreateThenSyncsAndStreamsWithTheMintedKey() throws Exception {
    ServiceClient client = create(0.5);
    await(client::isStreamConnected, "the stream connects");
    String key = service.minted().get(0);
    assertThat(service.seen)
        .extracting(s -> s.path() + " " + s.apiKey())
        .containsExactly("/v1/sync " + key, "/v1/stream " + key);
    assertThat(client.getKeyType()).isEqualTo("sk");
  }

  @Test
  void refreshesAndKeepsStreamingUnderEachNewKeyMissingNoChange() throws Exception {
    service.ttlMs = 3_000;
    ServiceClient client = create(1.0 / 3);
    await(client::isStreamConnected, "the stream connects");
    long started = System.nanoTime();
    int n = 0;
    // Changes every 40 ms for about three refreshes (one a second with three-second keys).
    while (System.nanoTime() - started < Duration.ofMillis(3_300).toNanos()) {
      n++;
      service.set("c" + n, n);
      Thread.sleep(40);
    }
    int last = n;
    await(() -> intConfig(client, "c" + last).equals(Optional.of(last)), "the last change arrives");
    for (int i = 1; i <= n; i++) assertThat(intConfig(client, "c" + i)).contains(i);

    assertThat(service.minted().size()).isGreaterThanOrEqualTo(3);
    Set<String> streamKeys = new HashSet<>();
    streams().forEach(s -> streamKeys.add(s.apiKey()));
    assertThat(streamKeys.size()).isGreaterThanOrEqualTo(3);
    assertThat(streams().subList(1, streams().size())).allSatisfy(s -> assertThat(s.lastEventId()).matches("\\d+"));
    assertThat(service.seen.stream().filter(s -> s.path().equals("/v1/sync")).count()).isEqualTo(1);
    // Each refresh came at a third of the key's life (1 s), before it expired: nothing refused.
    List<Long> at = service.exchangedAt;
    for (int i = 1; i < at.size(); i++) {
      long gapMs = (at.get(i) - at.get(i - 1)) / 1_000_000;
      assertThat(gapMs).isBetween(950L, 2_900L);
    }
    assertThat(service.refused).isZero();
  }

  @Test
  void retriesAFailedRefreshWithBackoffAndRecovers() throws Exception {
    ServiceClient client = create(0.25);
    service.set("before", 1);
    await(() -> intConfig(client, "before").isPresent(), "the first change arrives");
    Runnable recover = failExchanges(ExchangeService.Verdict.error(502, "upstream_unavailable", null));
    int count = service.exchanges.size();
    await(() -> service.exchanges.size() >= count + 4, "four failed exchanges");
    List<Long> at = service.exchangedAt.subList(count, count + 4);
    // Doubling delays (100, 200, 400 ms, with jitter: at least half of each).
    assertThat((at.get(1) - at.get(0)) / 1_000_000).isGreaterThanOrEqualTo(45);
    assertThat((at.get(2) - at.get(1)) / 1_000_000).isGreaterThanOrEqualTo(95);
    assertThat((at.get(3) - at.get(2)) / 1_000_000).isGreaterThanOrEqualTo(195);
    assertThat(intConfig(client, "before")).contains(1);
    assertThat(errors).anySatisfy(m -> assertThat(m).contains("exchange failed, retrying in"));

    recover.run();
    int minted = service.minted().size();
    await(() -> service.minted().size() > minted, "a new key");
    service.set("after", 2);
    await(() -> intConfig(client, "after").isPresent(), "a change under the new key");
  }

  @Test
  void waitsForRetryAfterWhenTheExchangeAnswers429() throws Exception {
    create(0.25);
    Runnable recover = failExchanges(new ExchangeService.Verdict(429, "rate_limited", null, 1));
    int count = service.exchanges.size();
    await(() -> service.exchanges.size() > count, "a refused exchange");
    recover.run();
    await(() -> service.exchanges.size() > count + 1, "the next exchange");
    long gapMs = (service.exchangedAt.get(count + 1) - service.exchangedAt.get(count)) / 1_000_000;
    assertThat(gapMs).isGreaterThanOrEqualTo(950);
  }

  @Test
  void aKeyThatExpiredBeforeARefreshSucceededDoesNotStopTheClient() throws Exception {
    ServiceClient client = create(0.5);
    await(client::isStreamConnected, "the stream connects");
    Runnable recover = failExchanges(ExchangeService.Verdict.error(401, "unauthorized", "expired"));
    // The key expires (two seconds); its stream ends and reconnects are refused.
    await(() -> service.refused > 0, "a refused request");
    await(() -> !client.isStreamConnected(), "the stream stops");
    service.set("during", 7);
    Thread.sleep(300);
    assertThat(client.getConfig("during")).isEmpty();

    recover.run();
    await(() -> intConfig(client, "during").isPresent(), "the change made during the outage");
    await(client::isStreamConnected, "the stream reconnects");
    List<ExchangeService.Seen> streams = streams();
    assertThat(streams.get(streams.size() - 1).apiKey()).isEqualTo(service.minted().get(service.minted().size() - 1));
  }

  @Test
  void aRevokedKeyIsExchangedAgainAtOnce() throws Exception {
    service.ttlMs = 60_000;
    ServiceClient client = create(2.0 / 3);
    await(client::isStreamConnected, "the stream connects");
    service.revokeAll();
    service.set("after-revoke", 1);
    await(() -> intConfig(client, "after-revoke").isPresent(), "the change after the revocation");
    assertThat(service.exchanges).hasSize(2);
  }

  @Test
  void withoutAStreamARefusedKeyIsFollowedByASync() throws Exception {
    ServiceClient client = create(0.5, c -> c.stream(false).cacheTtl(Duration.ofSeconds(60)));
    Runnable recover = failExchanges(ExchangeService.Verdict.error(502, "upstream_unavailable", null));
    Thread.sleep(2_100); // the key has expired
    service.set("x", 1);
    assertThatThrownBy(client::sync).isInstanceOf(ServiceUnauthorizedException.class);
    recover.run();
    await(() -> intConfig(client, "x").isPresent(), "a sync under the new key");
    List<ExchangeService.Seen> seen = service.seen;
    assertThat(seen.get(seen.size() - 1).apiKey()).isEqualTo(service.minted().get(service.minted().size() - 1));
  }

  @Test
  void createFailsWithTheExchangeReasonBeforeAnySync() {
    failExchanges(ExchangeService.Verdict.error(401, "unauthorized", "audience"));
    assertThatThrownBy(() -> create(0.5))
        .isInstanceOf(ServiceInitException.class)
        .hasMessageContaining("identity exchange: HTTP 401 unauthorized: audience")
        .hasCauseInstanceOf(ServiceUnauthorizedException.class);
    assertThat(service.seen).isEmpty();
  }

  @Test
  void closeEndsTheRefreshing() throws Exception {
    ServiceClient client = create(0.1);
    client.close();
    int count = service.exchanges.size();
    Thread.sleep(600);
    assertThat(service.exchanges).hasSize(count);
    assertThat(Thread.getAllStackTraces().keySet())
        .noneSatisfy(t -> assertThat(t.getName()).isEqualTo("service-client-identity"));
  }
}
