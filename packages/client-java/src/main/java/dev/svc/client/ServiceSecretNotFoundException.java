package dev.svc.client;

/** {@link ServiceClient#getSecret} for a key that is not in the client's cache. */
public class ServiceSecretNotFoundException extends ServiceException {
  private static final long serialVersionUID = 1L;

  private final String key;

  /**
   * @param key the secret's key
   */
  public ServiceSecretNotFoundException(String key) {
    super("secret \"" + key + "\" is not in the cache", 0, "secret_not_found", null);
    this.key = key;
  }

  /**
   * @return the key of the secret that was asked for
   */
  public String getKey() {
    return key;
  }
}
