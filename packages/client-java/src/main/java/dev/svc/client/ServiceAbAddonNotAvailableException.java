package dev.svc.client;

/** HTTP 403 on {@link ServiceClient#evaluateAB}: the project's AB Testing add-on is not active. */
public class ServiceAbAddonNotAvailableException extends ServiceException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed
   * @param status the HTTP status, or 0 for a local refusal
   * @param code the contract's error code, or null
   */
  public ServiceAbAddonNotAvailableException(String message, int status, String code) {
    super(message, status, code, null);
  }
}
