package dev.svc.client;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * A {@link WorkloadIdentity}'s settings as the client reads them: null where the method's
 * default applies. {@link #check()} holds the rules, run by {@link ServiceClient#create} rather
 * than by the builder, so a bad identity fails where every other bad setting does.
 */
record IdentitySettings(
    String identityId,
    IdentityMethod method,
    Path tokenFile,
    Supplier<String> token,
    String audience,
    String metadataUrl,
    String clientId,
    String stsEndpoint,
    String region,
    String serverId,
    Supplier<AwsCredentials> awsCredentials,
    double refreshAt,
    Duration retryInitialDelay,
    Duration retryMaxDelay) {

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.-]{1,128}");
  private static final Pattern URL = Pattern.compile("https?://[^/?#@\\s]+(/[^?#\\s]*)?");
  /** The optional settings each method reads: any other one given is a mistake, not ignored. */
  private static final Map<IdentityMethod, List<String>> FIELDS =
      Map.of(
          IdentityMethod.KUBERNETES, List.of("tokenFile"),
          IdentityMethod.OIDC, List.of("tokenFile", "token"),
          IdentityMethod.GCP, List.of("audience", "metadataUrl"),
          IdentityMethod.AZURE, List.of("audience", "metadataUrl", "clientId"),
          IdentityMethod.AWS, List.of("stsEndpoint", "region", "serverId", "awsCredentials"));

  /** Checks every setting; an {@link IllegalArgumentException} names the first problem. */
  void check() {
    if (identityId == null || !ID.matcher(identityId).matches()) {
      throw new IllegalArgumentException("identity.identityId must be an identity id");
    }
    if (method == null) throw new IllegalArgumentException("identity.method is required");
    Map<String, Object> given = new LinkedHashMap<>();
    given.put("tokenFile", tokenFile);
    given.put("token", token);
    given.put("audience", audience);
    given.put("metadataUrl", metadataUrl);
    given.put("clientId", clientId);
    given.put("stsEndpoint", stsEndpoint);
    given.put("region", region);
    given.put("serverId", serverId);
    given.put("awsCredentials", awsCredentials);
    for (Map.Entry<String, Object> entry : given.entrySet()) {
      Object value = entry.getValue();
      if (value == null) continue;
      if (!FIELDS.get(method).contains(entry.getKey())) {
        throw new IllegalArgumentException(
            "identity." + entry.getKey() + " does not apply to the " + method + " method");
      }
      if (value instanceof String text && text.isBlank()) {
        throw new IllegalArgumentException("identity." + entry.getKey() + " must not be blank");
      }
    }
    if (method == IdentityMethod.OIDC && (tokenFile == null) == (token == null)) {
      throw new IllegalArgumentException("identity: the oidc method takes either tokenFile or token");
    }
    if ((method == IdentityMethod.GCP || method == IdentityMethod.AZURE) && audience == null) {
      throw new IllegalArgumentException("identity.audience is required by the " + method + " method");
    }
    checkUrl("metadataUrl", metadataUrl);
    checkUrl("stsEndpoint", stsEndpoint);
    if (!(refreshAt > 0 && refreshAt < 1)) {
      throw new IllegalArgumentException("identity.refreshAt must be between 0 and 1");
    }
    positive("retryInitialDelay", retryInitialDelay);
    positive("retryMaxDelay", retryMaxDelay);
  }

  private static void checkUrl(String name, String url) {
    if (url == null) return;
    if (!URL.matcher(url).matches()) {
      throw new IllegalArgumentException(
          "identity." + name + " must be an http(s) URL without query or credentials");
    }
    URI.create(url);
  }

  private static void positive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException("identity." + name + " must be a positive duration");
    }
  }

  /** Never shows a token or credentials (a record's own would name the suppliers). */
  @Override
  public String toString() {
    return "WorkloadIdentity{identityId=" + identityId + ", method=" + method + "}";
  }
}
