package dev.svc.client;

import java.time.Duration;

/** HTTP 429 on a write operation: the key's write rate limit is exhausted. */
public class ServiceRateLimitedException extends ServiceException {
  private static final long serialVersionUID = 1L;

  private final Duration retryAfter;

  /**
   * @param message what failed
   * @param status the HTTP status (429)
   * @param code the contract's error code ({@code rate_limited})
   * @param retryAfter how long to wait before the next write (the {@code Retry-After} header)
   */
  public ServiceRateLimitedException(String message, int status, String code, Duration retryAfter) {
    super(message, status, code, null);
    this.retryAfter = retryAfter;
  }

  /**
   * @return how long to wait before the next write (whole seconds, from {@code Retry-After})
   */
  public Duration getRetryAfter() {
    return retryAfter;
  }
}
