package dev.svc.client;

import java.util.Locale;

/** How a workload proves who it is: one of a workload identity's five methods. */
public enum IdentityMethod {
  /** The projected service-account token file of a Kubernetes pod. */
  KUBERNETES,
  /** A {@code GetCallerIdentity} request signed with the AWS credentials of the default chain. */
  AWS,
  /** The GCP metadata server's identity token for an audience. */
  GCP,
  /** The Azure instance metadata service's managed-identity token for an audience. */
  AZURE,
  /** Any OpenID Connect token: from a file or a supplier. */
  OIDC;

  /**
   * The method of a setting's value, in any case ({@code kubernetes}, {@code AWS}, ...).
   *
   * @param name the method's name
   * @return the method
   * @throws IllegalArgumentException for any other name
   */
  public static IdentityMethod parse(String name) {
    if (name != null) {
      for (IdentityMethod method : values()) {
        if (method.name().equalsIgnoreCase(name.trim())) return method;
      }
    }
    throw new IllegalArgumentException(
        "identity method must be one of kubernetes, aws, gcp, azure, oidc");
  }

  /** @return the method's name as the contract writes it ({@code kubernetes}, ...) */
  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
