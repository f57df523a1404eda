package dev.svc.client;

import java.time.Duration;

/**
 * HTTP 429 on a sync: the key synced too often and is quarantined. The client sends no sync
 * request until {@link #getRetryAfter()} has passed; a {@link ServiceClient#sync()} before then
 * fails at once with this exception.
 */
public class ServiceQuarantinedException extends ServiceException {
  private static final long serialVersionUID = 1L;

  private final Duration retryAfter;

  /**
   * @param message what failed
   * @param status the HTTP status (429, also for the client's own refusal during a quarantine)
   * @param code the contract's error code ({@code sync_quarantined})
   * @param retryAfter how long until syncs are accepted again
   */
  public ServiceQuarantinedException(String message, int status, String code, Duration retryAfter) {
    super(message, status, code, null);
    this.retryAfter = retryAfter;
  }

  /**
   * @return how long until syncs are accepted again (whole seconds, from {@code Retry-After})
   */
  public Duration getRetryAfter() {
    return retryAfter;
  }
}
