package dev.svc.client;

/**
 * {@link ServiceClient#getSecret} or a write operation was used with a public key
 * ({@code svp_...}). Nothing was sent: the client refuses before any request.
 */
public class ServicePublicKeyException extends ServiceException {
  private static final long serialVersionUID = 1L;

  /**
   * @param operation the refused call, such as {@code setSecret}
   */
  public ServicePublicKeyException(String operation) {
    super(
        operation + " needs a secret key (svs_...); this client holds a public key",
        0,
        "public_key_forbidden",
        null);
  }
}
