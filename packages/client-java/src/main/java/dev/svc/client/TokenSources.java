package dev.svc.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Where each method's proof comes from, asked again at every exchange (platform tokens rotate):
 * Kubernetes — the projected service-account token file; OIDC — a token file or a supplier; GCP
 * — the metadata server's identity token for the audience; Azure — the instance metadata
 * service's token for the audience; AWS — a signed {@code GetCallerIdentity}
 * ({@link AwsCallerIdentity}, loaded only for that method).
 */
final class TokenSources {
  static final String GCP_METADATA_URL = "http://metadata.google.internal";
  static final String AZURE_METADATA_URL = "http://169.254.169.254";

  private TokenSources() {}

  /** The exchange body's proof ({@code token} or {@code aws}) for {@code identity}'s method. */
  static CredentialSource of(IdentitySettings identity, IdentityHttp http) {
    switch (identity.method()) {
      case KUBERNETES: {
        Path file = identity.tokenFile() == null ? WorkloadIdentity.KUBERNETES_TOKEN_FILE : identity.tokenFile();
        return () -> Map.of("token", tokenFile(file));
      }
      case OIDC: {
        Path file = identity.tokenFile();
        Supplier<String> supplier = identity.token();
        return () -> Map.of("token", file != null ? tokenFile(file) : supplied(supplier));
      }
      case GCP:
        return () -> Map.of("token", gcpToken(identity, http));
      case AZURE:
        return () -> Map.of("token", azureToken(identity, http));
      case AWS:
      default:
        return new AwsCallerIdentity(identity);
    }
  }

  /** A token file's content, trimmed; at most 64 KiB. */
  static String tokenFile(Path path) {
    byte[] content;
    try (InputStream in = Files.newInputStream(path)) {
      content = in.readNBytes(IdentityHttp.MAX_ANSWER_BYTES + 1);
    } catch (NoSuchFileException e) {
      throw new ServiceException("identity: cannot read the token file " + path + " (no such file)", e);
    } catch (IOException e) {
      throw new ServiceException("identity: cannot read the token file " + path + " (" + Transport.describe(e) + ")", e);
    }
    if (content.length > IdentityHttp.MAX_ANSWER_BYTES) {
      throw new ServiceException(
          "identity: the token file " + path + " is larger than " + IdentityHttp.MAX_ANSWER_BYTES + " bytes");
    }
    return nonEmpty(new String(content, StandardCharsets.UTF_8), "the token file " + path);
  }

  private static String supplied(Supplier<String> supplier) {
    String token;
    try {
      token = supplier.get();
    } catch (RuntimeException e) {
      throw new ServiceException("identity: the token supplier failed", e);
    }
    if (token == null || token.length() > IdentityHttp.MAX_ANSWER_BYTES) {
      throw new ServiceException("identity: the token supplier must give a string (at most 64 KiB)");
    }
    return nonEmpty(token, "the token supplier");
  }

  /** GCP: an ID token for the audience, with the full claims ({@code email}, project). */
  private static String gcpToken(IdentitySettings identity, IdentityHttp http) {
    String path =
        "/computeMetadata/v1/instance/service-accounts/default/identity?audience="
            + encode(identity.audience())
            + "&format=full";
    IdentityHttp.Answer answer =
        metadata(http, "the GCP metadata server", identity, GCP_METADATA_URL, path, "Metadata-Flavor", "Google");
    return nonEmpty(answer.text(), "the GCP metadata server");
  }

  /** Azure: a managed identity's access token for the audience (the IMDS {@code resource}). */
  private static String azureToken(IdentitySettings identity, IdentityHttp http) {
    String what = "the Azure metadata service";
    String path =
        "/metadata/identity/oauth2/token?api-version=2018-02-01&resource="
            + encode(identity.audience())
            + (identity.clientId() == null ? "" : "&client_id=" + encode(identity.clientId()));
    IdentityHttp.Answer answer = metadata(http, what, identity, AZURE_METADATA_URL, path, "Metadata", "true");
    JsonNode token;
    try {
      token = Json.MAPPER.readTree(answer.body()).get("access_token");
    } catch (IOException | RuntimeException e) {
      token = null;
    }
    if (token == null || !token.isTextual()) throw new ServiceException("identity: " + what + " gave no access_token");
    return nonEmpty(token.textValue(), "the Azure metadata service");
  }

  /** A metadata server's answer to {@code path}, below the identity's URL or the default; a 200. */
  private static IdentityHttp.Answer metadata(
      IdentityHttp http, String what, IdentitySettings identity, String defaultUrl, String path, String header, String value) {
    String base = (identity.metadataUrl() == null ? defaultUrl : identity.metadataUrl()).replaceAll("/+$", "");
    IdentityHttp.Answer answer = http.send("identity: " + what, IdentityHttp.get(base + path).header(header, value));
    if (answer.status() != 200) throw new ServiceException("identity: " + what + " answered HTTP " + answer.status());
    return answer;
  }

  private static String nonEmpty(String token, String source) {
    String trimmed = token.strip();
    if (trimmed.isEmpty()) throw new ServiceException("identity: " + source + " gave an empty token");
    return trimmed;
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
