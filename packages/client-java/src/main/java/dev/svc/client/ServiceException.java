package dev.svc.client;

/**
 * Base of every error the client raises for a service condition. It is thrown as itself for any
 * other transport, protocol or JSON-decoding failure: a network error, a request on a closed
 * client, a 400 {@code invalid_request} or 409 {@code version_conflict} of a write, a 5xx, or an
 * answer that does not follow the wire contract.
 *
 * <p>The service's own conditions are subclasses, one per row of the spec's exception table. A
 * bad configuration or argument is an {@link IllegalArgumentException} instead, raised before
 * any request. Messages never carry a secret value or an API key.
 */
public class ServiceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;

  /**
   * @param message what failed
   */
  public ServiceException(String message) {
    this(message, 0, null, null);
  }

  /**
   * @param message what failed
   * @param cause the underlying error (a network failure, a JSON parse error, ...)
   */
  public ServiceException(String message, Throwable cause) {
    this(message, 0, null, cause);
  }

  /**
   * @param message what failed
   * @param status the HTTP status of the answer, or 0 when there was no answer
   * @param code the contract's error code of the answer (problem+json {@code code}), or null
   * @param cause the underlying error, or null
   */
  public ServiceException(String message, int status, String code, Throwable cause) {
    super(message, cause);
    this.status = status;
    this.code = code;
  }

  /**
   * The contract's error code carried by the error: the problem+json {@code code} of an HTTP
   * answer ({@code unauthorized}, {@code secret_not_found}, {@code version_conflict},
   * {@code rate_limited}, ...), or the code of a local refusal ({@code public_key_forbidden},
   * {@code secret_not_found}, {@code sync_quarantined}).
   *
   * @return the code, or null when there is none (a network failure, say)
   */
  public String getCode() {
    return code;
  }

  /**
   * The HTTP status of the answer that caused the error.
   *
   * @return the status, or 0 when the error is not an HTTP answer
   */
  public int getStatus() {
    return status;
  }
}
