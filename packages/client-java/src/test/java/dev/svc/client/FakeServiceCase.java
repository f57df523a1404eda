package dev.svc.client;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the tests against the scripted fake api share: a fresh fake per test, a latch that
 * releases its open streams at the end, and a client config with short reconnect delays.
 */
abstract class FakeServiceCase {
  protected FakeService fake;
  /** Open streams wait on it; counted down after each test. */
  protected final CountDownLatch release = new CountDownLatch(1);

  @BeforeEach
  void startFake() throws Exception {
    fake = new FakeService();
  }

  @AfterEach
  void stopFake() {
    release.countDown();
    fake.close();
  }

  protected ServiceConfig.Builder config() {
    return ServiceConfig.builder()
        .baseUrl(fake.baseUrl())
        .apiKey(FakeService.SK)
        .logger(ServiceLogger.silent())
        .reconnectInitialDelay(Duration.ofMillis(20))
        .reconnectMaxDelay(Duration.ofMillis(100));
  }

  protected static void await(BooleanSupplier condition, String what) throws InterruptedException {
    Await.until(condition, what, Duration.ofSeconds(10));
  }
}
