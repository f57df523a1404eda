package dev.svc.client;

/** HTTP 404: the workspace in the base URL does not exist, or a write's target is missing ({@link #getCode()} is then {@code secret_not_found} or {@code version_not_found}). */
public class ServiceNotFoundException extends ServiceException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed
   * @param status the HTTP status, or 0 for a local refusal
   * @param code the contract's error code, or null
   */
  public ServiceNotFoundException(String message, int status, String code) {
    super(message, status, code, null);
  }
}
