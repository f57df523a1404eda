package dev.svc.client;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/** A checked {@link ServiceConfig} with every default filled in. */
record ResolvedConfig(
    String baseUrl,
    String apiKey,
    String keyType,
    boolean stream,
    Duration cacheTtl,
    Duration requestTimeout,
    ServiceLogger logger,
    Path secretFilesDir,
    Duration reconnectInitialDelay,
    Duration reconnectMaxDelay,
    Duration reconnectResetAfter,
    Duration streamSilenceTimeout,
    IdentitySettings identity) {

  /** Checks {@code config}; an {@link IllegalArgumentException} names the first problem found. */
  static ResolvedConfig of(ServiceConfig config) {
    if (config == null) throw new IllegalArgumentException("ServiceConfig is required");
    String baseUrl = baseUrl(config.getBaseUrl());
    WorkloadIdentity given = config.getIdentity();
    IdentitySettings identity = given == null ? null : given.settings();
    String rawKey = config.getApiKey();
    String apiKey;
    String keyType;
    if (identity != null) {
      if (rawKey != null) throw new IllegalArgumentException("apiKey and identity exclude each other: give one");
      identity.check();
      // The key comes from the first exchange.
      apiKey = "";
      keyType = ApiKeys.SECRET;
    } else {
      if (rawKey == null || rawKey.isBlank()) throw new IllegalArgumentException("apiKey is required");
      apiKey = rawKey.trim();
      keyType =
          ApiKeys.keyTypeOf(apiKey)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "apiKey is not a valid key: expected svs_ or svp_ followed by 40 letters"
                              + " and digits with a correct checksum"));
    }
    return new ResolvedConfig(
        baseUrl,
        apiKey,
        keyType,
        config.isStream(),
        positive("cacheTtl", config.getCacheTtl()),
        positive("requestTimeout", config.getRequestTimeout()),
        config.getLogger() == null ? ServiceLogger.defaultLogger() : config.getLogger(),
        config.getSecretFilesDir(),
        positive("reconnectInitialDelay", config.getReconnectInitialDelay()),
        positive("reconnectMaxDelay", config.getReconnectMaxDelay()),
        positive("reconnectResetAfter", config.getReconnectResetAfter()),
        positive("streamSilenceTimeout", config.getStreamSilenceTimeout()),
        identity);
  }

  /** The same settings with a workload identity's new key. */
  ResolvedConfig withKey(String key, String type) {
    return new ResolvedConfig(
        baseUrl, key, type, stream, cacheTtl, requestTimeout, logger, secretFilesDir,
        reconnectInitialDelay, reconnectMaxDelay, reconnectResetAfter, streamSilenceTimeout, identity);
  }

  /** Never shows the API key. */
  @Override
  public String toString() {
    return "ResolvedConfig[baseUrl=" + baseUrl + ", keyType=" + keyType + "]";
  }

  /** The base URL without trailing slashes: an http(s) URL without credentials, query or fragment. */
  static String baseUrl(String raw) {
    if (raw == null || raw.isBlank()) throw new IllegalArgumentException("baseUrl is required");
    URI uri;
    try {
      uri = new URI(raw.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("baseUrl is not a URL: " + raw, e);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("baseUrl must be an http or https URL: " + raw);
    }
    if (uri.isOpaque() || uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new IllegalArgumentException("baseUrl has no host: " + raw);
    }
    if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new IllegalArgumentException(
          "baseUrl must not carry credentials, a query or a fragment: "
              + scheme
              + "://"
              + uri.getHost());
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath().replaceAll("/+$", "");
    String port = uri.getPort() == -1 ? "" : ":" + uri.getPort();
    return scheme + "://" + uri.getHost() + port + path;
  }

  private static Duration positive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be a positive duration");
    }
    return value;
  }
}
