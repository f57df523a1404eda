package dev.svc.client;

/**
 * {@link ServiceClient#create(ServiceConfig)} failed: the initial sync did not succeed.
 * {@link #getCause()} gives the reason: a {@link ServiceUnauthorizedException},
 * {@link ServiceNotFoundException}, {@link ServiceQuarantinedException}, or a plain
 * {@link ServiceException} for network and protocol failures.
 */
public class ServiceInitException extends ServiceException {
  private static final long serialVersionUID = 1L;

  /**
   * @param cause why the initial sync failed; its message is part of this one
   */
  public ServiceInitException(Throwable cause) {
    super("initial sync failed: " + (cause == null ? "unknown" : cause.getMessage()), cause);
  }
}
