package dev.svc.client;

import java.net.URI;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code aws} method's proof: a {@code GetCallerIdentity} request to STS, signed (SigV4) with
 * the workload's AWS credentials but not sent: the service forwards it to its configured STS
 * endpoint and learns the caller's account and ARN from the answer.
 *
 * <p>The AWS SDK for Java's auth module ({@code software.amazon.awssdk:auth}: the default
 * credential chain and the SigV4 signer) does the work. It is an optional dependency: this class
 * names none of its types, and {@link AwsSigV4}, which does, is loaded only once the module is
 * known to be on the classpath, so clients of the other methods run without it.
 */
final class AwsCallerIdentity implements CredentialSource {
  static final String DEFAULT_STS_ENDPOINT = "https://sts.amazonaws.com/";
  private static final String SIGNER = "software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner";
  private static final Pattern REGIONAL =
      Pattern.compile("sts(?:-fips)?\\.([a-z0-9-]+)\\.amazonaws\\.com(?:\\.cn)?");

  private final IdentitySettings identity;
  private final URI endpoint;
  private final String region;
  /** The SDK's signer and credentials, made at the first exchange. */
  private AutoCloseable sigv4;

  AwsCallerIdentity(IdentitySettings identity) {
    this.identity = identity;
    String url = identity.stsEndpoint() == null ? DEFAULT_STS_ENDPOINT : identity.stsEndpoint();
    URI uri = URI.create(url);
    this.endpoint = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? URI.create(url + "/") : uri;
    Matcher regional = REGIONAL.matcher(endpoint.getHost());
    this.region =
        identity.region() != null ? identity.region() : regional.matches() ? regional.group(1) : "us-east-1";
  }

  @Override
  public synchronized Map<String, Object> get() {
    if (sigv4 == null) {
      try {
        Class.forName(SIGNER, false, AwsCallerIdentity.class.getClassLoader());
      } catch (ClassNotFoundException | LinkageError e) {
        throw new ServiceException(
            "identity: the aws method needs the AWS SDK for Java's auth module"
                + " (software.amazon.awssdk:auth) on the classpath",
            e);
      }
      sigv4 = new AwsSigV4(identity.awsCredentials());
    }
    return Map.of("aws", ((AwsSigV4) sigv4).sign(endpoint, region, identity.serverId()));
  }

  @Override
  public synchronized void close() {
    if (sigv4 == null) return;
    try {
      sigv4.close();
    } catch (Exception e) {
      // best effort
    }
  }
}
