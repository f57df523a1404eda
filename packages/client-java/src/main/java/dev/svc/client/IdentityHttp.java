package dev.svc.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * The requests of the exchange and of the token sources (metadata servers): a time limit, no
 * redirects, no API key, and an answer read up to a size limit (a metadata server or an exchange
 * never sends megabytes; a broken proxy might).
 */
final class IdentityHttp {
  /** The largest answer read: tokens and exchange answers are a few KiB. */
  static final int MAX_ANSWER_BYTES = 64 * 1024;

  /** An answer, read whole. */
  record Answer(int status, java.net.http.HttpHeaders headers, byte[] body) {
    String text() {
      return new String(body, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private final HttpClient http;
  private final Duration timeout;

  IdentityHttp(Duration timeout) {
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  /**
   * Sends {@code request} (its time limit set here) and reads the whole answer; a
   * {@link ServiceException} naming {@code what} when none arrives or it is too large.
   */
  Answer send(String what, HttpRequest.Builder request) {
    try {
      HttpResponse<InputStream> response =
          http.send(
              request.timeout(timeout).header("User-Agent", Transport.USER_AGENT).build(),
              HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream in = response.body()) {
        byte[] body = in.readNBytes(MAX_ANSWER_BYTES + 1);
        if (body.length > MAX_ANSWER_BYTES) {
          throw new ServiceException(what + ": the answer is larger than " + MAX_ANSWER_BYTES + " bytes");
        }
        return new Answer(response.statusCode(), response.headers(), body);
      }
    } catch (HttpTimeoutException e) {
      throw new ServiceException(what + " timed out after " + timeout.toMillis() + " ms", e);
    } catch (IOException e) {
      throw new ServiceException(what + " failed: " + Transport.describe(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ServiceException(what + " was interrupted", e);
    }
  }

  static HttpRequest.Builder get(String url) {
    return HttpRequest.newBuilder(URI.create(url)).GET();
  }
}
