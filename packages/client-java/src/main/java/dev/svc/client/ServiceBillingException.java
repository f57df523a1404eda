package dev.svc.client;

/** HTTP 402 on {@link ServiceClient#evaluateAB} or a write operation: the workspace's billing is overdue. */
public class ServiceBillingException extends ServiceException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed
   * @param status the HTTP status, or 0 for a local refusal
   * @param code the contract's error code, or null
   */
  public ServiceBillingException(String message, int status, String code) {
    super(message, status, code, null);
  }
}
