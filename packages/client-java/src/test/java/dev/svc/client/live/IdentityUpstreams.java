package dev.svc.client.live;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The testkit's identity stand-ins (an OIDC issuer and an STS checking SigV4) as a Node process
 * ({@code packages/testkit/src/identity/upstreams-process.ts}), for the end-to-end tests against
 * the real api: it prints their addresses and test credentials, and runs until its stdin closes.
 */
public final class IdentityUpstreams implements AutoCloseable {
  private static final String SCRIPT = "packages/testkit/src/identity/upstreams-process.ts";

  private final Process process;
  /** {@code issuer}, {@code audience}, {@code token}. */
  public final JsonNode oidc;
  /** {@code sts_endpoint}, {@code access_key_id}, {@code secret_access_key}, ... */
  public final JsonNode aws;

  public IdentityUpstreams() throws IOException {
    process =
        new ProcessBuilder("node", "--import", "tsx", SCRIPT)
            .directory(LiveServer.repoRoot().toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String line =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)).readLine();
    if (line == null) {
      close();
      throw new IOException(SCRIPT + " printed nothing");
    }
    JsonNode info = new ObjectMapper().readTree(line);
    oidc = info.get("oidc");
    aws = info.get("aws");
  }

  @Override
  public void close() {
    try {
      process.getOutputStream().close();
      if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
