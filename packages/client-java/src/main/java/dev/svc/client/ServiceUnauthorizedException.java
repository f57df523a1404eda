package dev.svc.client;

/** HTTP 401: the API key is wrong, revoked, or belongs to another workspace. */
public class ServiceUnauthorizedException extends ServiceException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed
   * @param status the HTTP status, or 0 for a local refusal
   * @param code the contract's error code, or null
   */
  public ServiceUnauthorizedException(String message, int status, String code) {
    super(message, status, code, null);
  }
}
