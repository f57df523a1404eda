package dev.svc.client.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.client.ServiceClient;
import dev.svc.client.ServiceConfig;
import dev.svc.client.ServiceException;
import dev.svc.client.ServiceInitException;
import dev.svc.client.ServiceLogger;
import dev.svc.client.ServiceUnauthorizedException;
import dev.svc.client.live.LiveServer;
import dev.svc.client.live.LiveServerExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The auto-configuration, in Spring contexts built by {@link ApplicationContextRunner}, against the live api. */
@ExtendWith(LiveServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServiceAutoConfigurationTest {
  private static final AtomicInteger COUNTER = new AtomicInteger();

  private LiveServer live;
  private String ws;
  private String baseUrl;
  private String secretKey;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ServiceAutoConfiguration.class));

  @BeforeAll
  void workspace(LiveServer live) throws Exception {
    this.live = live;
    ws = "spring-" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
    String project = "/workspaces/" + ws + "/projects/app";
    live.admin("POST", "/workspaces", Map.of("slug", ws, "name", "Spring"));
    live.admin("POST", "/workspaces/" + ws + "/projects", Map.of("slug", "app", "name", "App"));
    live.admin("PUT", project + "/flags/checkout.v2", Map.of("is_active", true));
    live.admin("PUT", project + "/configs/db.pool", Map.of("value", Map.of("max", 10), "is_public", false));
    live.admin(
        "PUT", project + "/secrets/tls.cert", Map.of("value", "PEM", "type", "file", "file_name", "tls.pem"));
    secretKey = live.admin("POST", project + "/keys", Map.of("kind", "secret")).json().get("key").asText();
    live.awaitKey(ws, secretKey);
    baseUrl = live.apiUrl() + "/" + ws;
  }

  private ApplicationContextRunner configured(String... more) {
    return runner
        .withPropertyValues("service.base-url=" + baseUrl, "service.api-key=" + secretKey)
        .withPropertyValues(more);
  }

  record Pool(int max) {}

  @Test
  void createsASyncedClientAndClosesItWithTheContext() {
    AtomicReference<ServiceClient> bean = new AtomicReference<>();
    AtomicReference<String> file = new AtomicReference<>();
    configured("service.stream=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(ServiceClient.class);
              ServiceClient client = context.getBean(ServiceClient.class);
              bean.set(client);
              assertThat(client.getKeyType()).isEqualTo("sk");
              assertThat(client.getFlag("checkout.v2")).isTrue();
              assertThat(client.getConfigAs("db.pool", Pool.class)).contains(new Pool(10));
              assertThat(client.isStreamConnected()).isFalse();
              file.set(client.getSecretFilePath("tls.cert").orElseThrow());
              assertThat(Path.of(file.get())).hasContent("PEM");
            });
    ServiceClient client = bean.get();
    // close() is the destroy method: the files are gone and network calls fail.
    assertThat(Path.of(file.get())).doesNotExist();
    assertThat(client.getSecretFilePath("tls.cert")).isEmpty();
    assertThat(client.getFlag("checkout.v2")).isTrue();
    assertThatThrownBy(client::sync).isExactlyInstanceOf(ServiceException.class).hasMessageContaining("closed");
  }

  @Test
  void startsTheStreamByDefaultAndStopsItOnClose() {
    AtomicReference<ServiceClient> bean = new AtomicReference<>();
    configured()
        .run(
            context -> {
              ServiceClient client = context.getBean(ServiceClient.class);
              bean.set(client);
              await(client::isStreamConnected, "the stream connects");
              live.admin("PUT", "/workspaces/" + ws + "/projects/app/configs/pushed", Map.of("value", 1, "is_public", false));
              await(() -> client.getConfig("pushed").isPresent(), "a change is pushed");
            });
    assertThat(bean.get().isStreamConnected()).isFalse();
  }

  @Test
  void bindsTheCacheTimeToLive() {
    configured("service.stream=false", "service.cache-ttl=200ms")
        .run(
            context -> {
              ServiceClient client = context.getBean(ServiceClient.class);
              String key = "ttl.flag" + COUNTER.incrementAndGet();
              assertThat(client.getFlag(key)).isFalse();
              live.admin("PUT", "/workspaces/" + ws + "/projects/app/flags/" + key, Map.of("is_active", true));
              await(() -> client.getFlag(key), "the background re-sync brings the flag");
            });
  }

  @Test
  void aServiceLoggerBeanReplacesTheDefault() {
    List<String> messages = new CopyOnWriteArrayList<>();
    ServiceLogger recording =
        new ServiceLogger() {
          @Override
          public void debug(String message) {
            messages.add("debug " + message);
          }

          @Override
          public void info(String message) {
            messages.add("info " + message);
          }

          @Override
          public void error(String message, Throwable cause) {
            messages.add("error " + message);
          }
        };
    configured("service.stream=false")
        .withBean(ServiceLogger.class, () -> recording)
        .run(context -> assertThat(context).hasNotFailed());
    assertThat(messages).anyMatch(m -> m.startsWith("debug sync: revision"));
  }

  @Test
  void backsOffForTheApplicationsOwnClient() {
    configured("service.stream=false")
        .withBean(
            "myClient",
            ServiceClient.class,
            () ->
                ServiceClient.create(
                    ServiceConfig.builder()
                        .baseUrl(baseUrl)
                        .apiKey(secretKey)
                        .stream(false)
                        .logger(ServiceLogger.silent())
                        .build()),
            definition -> definition.setDestroyMethodName("close"))
        .run(context -> assertThat(context).hasSingleBean(ServiceClient.class).hasBean("myClient"));
  }

  @Test
  void canBeTurnedOff() {
    runner.withPropertyValues("service.enabled=false").run(context -> assertThat(context).doesNotHaveBean(ServiceClient.class));
  }

  @Test
  void failsTheContextWithoutAnApiKey() {
    runner
        .withPropertyValues("service.base-url=" + baseUrl)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("apiKey"));
  }

  @Test
  void failsTheContextWhenTheInitialSyncFails() {
    runner
        .withPropertyValues(
            "service.base-url=" + baseUrl,
            "service.api-key=svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN",
            "service.stream=false")
        .run(
            context -> {
              assertThat(context).hasFailed();
              Throwable failure = context.getStartupFailure();
              while (failure != null && !(failure instanceof ServiceInitException)) failure = failure.getCause();
              assertThat(failure).isInstanceOf(ServiceInitException.class);
              assertThat(failure.getCause()).isInstanceOf(ServiceUnauthorizedException.class);
            });
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting until " + what);
      Thread.sleep(25);
    }
  }
}
