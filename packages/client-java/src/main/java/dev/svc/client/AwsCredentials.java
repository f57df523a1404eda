package dev.svc.client;

/**
 * AWS credentials given to the {@code aws} method instead of the AWS SDK's default chain.
 *
 * @param accessKeyId the access key id
 * @param secretAccessKey the secret access key
 * @param sessionToken the session token of temporary credentials, or null
 */
public record AwsCredentials(String accessKeyId, String secretAccessKey, String sessionToken) {
  /** Never shows the secret or the token. */
  @Override
  public String toString() {
    return "AwsCredentials[accessKeyId=" + accessKeyId + "]";
  }
}
