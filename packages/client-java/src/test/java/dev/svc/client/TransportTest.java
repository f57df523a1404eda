package dev.svc.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.client.Transport.Operation;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TransportTest {
  private static final HttpHeaders NONE = HttpHeaders.of(Map.of(), (a, b) -> true);

  private static byte[] problem(int status, String code) {
    return ("{\"type\":\"about:blank\",\"title\":\"t\",\"status\":" + status + ",\"code\":\"" + code + "\",\"detail\":\"d\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static ServiceException error(int status, String code, Operation operation) {
    return Transport.errorOf(status, NONE, problem(status, code), operation);
  }

  @Test
  void mapsEachStatusToItsException() {
    assertThat(error(401, "unauthorized", Operation.SYNC)).isExactlyInstanceOf(ServiceUnauthorizedException.class);
    assertThat(error(402, "billing_overdue", Operation.WRITE)).isExactlyInstanceOf(ServiceBillingException.class);
    assertThat(error(403, "ab_addon_inactive", Operation.EVALUATE_AB))
        .isExactlyInstanceOf(ServiceAbAddonNotAvailableException.class);
    assertThat(error(403, "public_key_forbidden", Operation.WRITE)).isExactlyInstanceOf(ServicePublicKeyException.class);
    assertThat(error(403, "other", Operation.WRITE)).isExactlyInstanceOf(ServiceException.class);
    assertThat(error(404, "secret_not_found", Operation.WRITE)).isExactlyInstanceOf(ServiceNotFoundException.class);
    assertThat(error(409, "version_conflict", Operation.WRITE)).isExactlyInstanceOf(ServiceException.class);
    assertThat(error(400, "invalid_request", Operation.EVALUATE_AB)).isExactlyInstanceOf(ServiceException.class);
    assertThat(error(500, "internal", Operation.SYNC)).isExactlyInstanceOf(ServiceException.class);
    assertThat(error(429, "sync_quarantined", Operation.SYNC)).isExactlyInstanceOf(ServiceQuarantinedException.class);
    assertThat(error(429, "rate_limited", Operation.WRITE)).isExactlyInstanceOf(ServiceRateLimitedException.class);
  }

  @Test
  void keepsTheProblemsCodeStatusAndDetail() {
    ServiceException e = error(404, "version_not_found", Operation.WRITE);
    assertThat(e.getCode()).isEqualTo("version_not_found");
    assertThat(e.getStatus()).isEqualTo(404);
    assertThat(e.getMessage()).isEqualTo("write: HTTP 404 version_not_found: d");
  }

  @Test
  void aBodyThatIsNotAProblemLeavesTheCodeEmpty() {
    ServiceException e = Transport.errorOf(502, NONE, "<html>".getBytes(StandardCharsets.UTF_8), Operation.SYNC);
    assertThat(e).isExactlyInstanceOf(ServiceException.class);
    assertThat(e.getCode()).isNull();
    assertThat(e.getStatus()).isEqualTo(502);
  }

  @Test
  void readsRetryAfterOfA429() {
    HttpHeaders headers = HttpHeaders.of(Map.of("Retry-After", List.of("7")), (a, b) -> true);
    ServiceException e = Transport.errorOf(429, headers, problem(429, "rate_limited"), Operation.WRITE);
    assertThat(((ServiceRateLimitedException) e).getRetryAfter()).isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void retryAfterIsSecondsOrAnHttpDateAndOneSecondOtherwise() {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    assertThat(Transport.retryAfter("120", now)).isEqualTo(Duration.ofSeconds(120));
    assertThat(Transport.retryAfter(" 3 ", now)).isEqualTo(Duration.ofSeconds(3));
    String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(now.plusSeconds(42).atOffset(ZoneOffset.UTC));
    assertThat(Transport.retryAfter(date, now)).isEqualTo(Duration.ofSeconds(42));
    String past = DateTimeFormatter.RFC_1123_DATE_TIME.format(now.minusSeconds(42).atOffset(ZoneOffset.UTC));
    assertThat(Transport.retryAfter(past, now)).isEqualTo(Duration.ZERO);
    assertThat(Transport.retryAfter(null, now)).isEqualTo(Duration.ofSeconds(1));
    assertThat(Transport.retryAfter("soon", now)).isEqualTo(Duration.ofSeconds(1));
    assertThat(Transport.retryAfter("-5", now)).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void encodesPathSegments() {
    assertThat(ServiceClient.pathSegment("stripe.api_key")).isEqualTo("stripe.api_key");
    assertThat(ServiceClient.pathSegment("bad key!/x")).isEqualTo("bad%20key%21%2Fx");
    assertThat(ServiceClient.pathSegment("ü")).isEqualTo("%C3%BC");
  }
}
