package dev.svc.client;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.AwsSessionCredentialsIdentity;

/**
 * Signs {@code GetCallerIdentity} with the AWS SDK: {@link AwsV4HttpSigner}, and the credentials
 * of {@link DefaultCredentialsProvider} (or those given). Loaded only by
 * {@link AwsCallerIdentity}, once the SDK is known to be there.
 */
final class AwsSigV4 implements AutoCloseable {
  static final String BODY = "Action=GetCallerIdentity&Version=2011-06-15";

  private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();
  private final Supplier<AwsCredentials> given;
  private final AwsCredentialsProvider chain;

  AwsSigV4(Supplier<AwsCredentials> given) {
    this.given = given;
    this.chain = given == null ? DefaultCredentialsProvider.builder().build() : null;
  }

  Map<String, Object> sign(URI endpoint, String region, String serverId) {
    SdkHttpRequest.Builder request =
        SdkHttpRequest.builder()
            .method(SdkHttpMethod.POST)
            .uri(endpoint)
            .putHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8");
    if (serverId != null) request.putHeader("X-Svc-Server-Id", serverId);
    SignedRequest signed;
    try {
      AwsCredentialsIdentity credentials = credentials();
      signed =
          signer.sign(
              r ->
                  r.identity(credentials)
                      .request(request.build())
                      .payload(ContentStreamProvider.fromUtf8String(BODY))
                      .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "sts")
                      .putProperty(AwsV4HttpSigner.REGION_NAME, region));
    } catch (ServiceException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new ServiceException("identity: signing GetCallerIdentity failed: " + Transport.describe(e), e);
    }
    Map<String, String> headers = new LinkedHashMap<>();
    signed.request().forEachHeader((name, values) -> headers.put(name, String.join(",", values)));
    Map<String, Object> aws = new LinkedHashMap<>();
    aws.put("method", "POST");
    aws.put("url", endpoint.toString());
    aws.put("headers", headers);
    aws.put("body", Base64.getEncoder().encodeToString(BODY.getBytes(StandardCharsets.UTF_8)));
    return aws;
  }

  private AwsCredentialsIdentity credentials() {
    if (chain != null) return chain.resolveCredentials();
    AwsCredentials c;
    try {
      c = given.get();
    } catch (RuntimeException e) {
      throw new ServiceException("identity: the AWS credentials supplier failed", e);
    }
    if (c == null || c.accessKeyId() == null || c.secretAccessKey() == null) {
      throw new ServiceException("identity: the AWS credentials supplier gave no credentials");
    }
    return c.sessionToken() == null
        ? AwsCredentialsIdentity.create(c.accessKeyId(), c.secretAccessKey())
        : AwsSessionCredentialsIdentity.create(c.accessKeyId(), c.secretAccessKey(), c.sessionToken());
  }

  @Override
  public void close() {
    if (chain instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        // best effort
      }
    }
  }
}
