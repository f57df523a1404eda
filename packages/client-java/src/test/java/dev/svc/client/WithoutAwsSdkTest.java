package dev.svc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The AWS SDK is an optional dependency: a client of any other method must run without it. The
 * client's classes are loaded here by a class loader that sees only them, Jackson, SLF4J and the
 * JDK — no {@code software.amazon} class at all — and used against the exchange stand-in.
 */
class WithoutAwsSdkTest {
  private ExchangeService service;
  private URLClassLoader loader;
  @TempDir Path dir;

  @BeforeEach
  void start() throws Exception {
    service = new ExchangeService();
    service.ttlMs = 600_000;
    URL[] urls = {
      location(ServiceClient.class),
      location(ObjectMapper.class),
      location(JsonFactory.class),
      location(JsonProperty.class),
      location(LoggerFactory.class)
    };
    loader = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
  }

  @AfterEach
  void stop() throws Exception {
    loader.close();
    service.close();
  }

  private static URL location(Class<?> type) throws Exception {
    return type.getProtectionDomain().getCodeSource().getLocation();
  }

  /** {@code ServiceClient.create(...)} of the isolated classes with {@code method}'s identity. */
  private Object create(String method, Path tokenFile) throws Exception {
    Class<?> methods = loader.loadClass("dev.svc.client.IdentityMethod");
    Object builder =
        loader
            .loadClass("dev.svc.client.WorkloadIdentity")
            .getMethod("builder", String.class, methods)
            .invoke(null, ExchangeService.IDENTITY_ID, methods.getMethod("parse", String.class).invoke(null, method));
    if (tokenFile != null) builder.getClass().getMethod("tokenFile", Path.class).invoke(builder, tokenFile);
    Object identity = builder.getClass().getMethod("build").invoke(builder);
    Class<?> configs = loader.loadClass("dev.svc.client.ServiceConfig");
    Object config = configs.getMethod("builder").invoke(null);
    Class<?> type = config.getClass();
    type.getMethod("baseUrl", String.class).invoke(config, service.baseUrl());
    type.getMethod("identity", identity.getClass()).invoke(config, identity);
    type.getMethod("stream", boolean.class).invoke(config, true);
    Object silent = loader.loadClass("dev.svc.client.ServiceLogger").getMethod("silent").invoke(null);
    type.getMethod("logger", loader.loadClass("dev.svc.client.ServiceLogger")).invoke(config, silent);
    Object built = type.getMethod("build").invoke(config);
    try {
      return loader.loadClass("dev.svc.client.ServiceClient").getMethod("create", configs).invoke(null, built);
    } catch (InvocationTargetException e) {
      throw (Exception) e.getCause();
    }
  }

  @Test
  void theIsolatedLoaderHasNoAwsSdk() {
    assertThatThrownBy(
            () -> Class.forName("software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner", false, loader))
        .isInstanceOf(ClassNotFoundException.class);
  }

  @Test
  void theIsolatedLoaderHasNoOpenFeatureSdkEither() {
    // The OpenFeature provider's SDK is optional too: the client below runs without it.
    assertThatThrownBy(() -> Class.forName("dev.openfeature.sdk.FeatureProvider", false, loader))
        .isInstanceOf(ClassNotFoundException.class);
  }

  @Test
  void aKubernetesIdentityWorksWithoutTheAwsSdk() throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "k8s-token");
    service.set("greeting", "hello");
    Object client = create("kubernetes", file);
    try {
      assertThat(client.getClass().getClassLoader()).isSameAs(loader);
      Object value = client.getClass().getMethod("getConfig", String.class).invoke(client, "greeting");
      assertThat(((Optional<?>) value).map(Object::toString)).contains("\"hello\"");
      assertThat(service.exchanges.get(0).get("token").asText()).isEqualTo("k8s-token");
    } finally {
      client.getClass().getMethod("close").invoke(client);
    }
  }

  @Test
  void theAwsMethodWithoutTheSdkNamesTheModule() {
    assertThatThrownBy(() -> create("aws", null))
        .hasMessageContaining("identity: the aws method needs the AWS SDK for Java's auth module")
        .hasMessageContaining("software.amazon.awssdk:auth");
    assertThat(service.exchanges).isEmpty();
  }
}
