package dev.svc.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.AwsSessionCredentialsIdentity;

/**
 * The receiving side of the {@code aws} method, as STS would check it: the signed
 * {@code GetCallerIdentity} request is signed again with the AWS SDK's {@link AwsV4HttpSigner}
 * from the same credentials, date and signed headers, and the two signatures must match.
 */
final class Sigv4Check {
  private static final Pattern AUTHORIZATION =
      Pattern.compile(
          "AWS4-HMAC-SHA256 Credential=([^/]+)/\\d{8}/([^/]+)/sts/aws4_request, SignedHeaders=([^,]+),"
              + " Signature=([0-9a-f]{64})");
  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private Sigv4Check() {}

  /** Why {@code aws} is not a valid signature by {@code credentials}, or null when it is. */
  static String problem(JsonNode aws, AwsCredentials credentials, String region, List<String> mustSign) {
    Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    aws.path("headers").properties().forEach(e -> headers.put(e.getKey(), e.getValue().asText()));
    Matcher m = AUTHORIZATION.matcher(headers.getOrDefault("authorization", ""));
    if (!m.matches()) return "no SigV4 Authorization header";
    if (!m.group(1).equals(credentials.accessKeyId())) return "another access key";
    if (!m.group(2).equals(region)) return "signed for " + m.group(2);
    List<String> signed = List.of(m.group(3).split(";"));
    for (String name : concat(List.of("host", "x-amz-date"), mustSign)) {
      if (!signed.contains(name)) return name + " is not signed";
    }
    String body = new String(Base64.getDecoder().decode(aws.path("body").asText()), StandardCharsets.UTF_8);
    if (!body.contains("Action=GetCallerIdentity")) return "not GetCallerIdentity";
    Instant date = Instant.from(AMZ_DATE.parse(headers.get("x-amz-date")));
    SdkHttpRequest.Builder request =
        SdkHttpRequest.builder().method(SdkHttpMethod.fromValue(aws.path("method").asText())).uri(URI.create(aws.path("url").asText()));
    for (String name : signed) {
      if (!name.equals("host") && !name.equals("x-amz-date") && !name.equals("x-amz-security-token")) {
        request.putHeader(name, headers.get(name));
      }
    }
    AwsCredentialsIdentity identity =
        credentials.sessionToken() == null
            ? AwsCredentialsIdentity.create(credentials.accessKeyId(), credentials.secretAccessKey())
            : AwsSessionCredentialsIdentity.create(
                credentials.accessKeyId(), credentials.secretAccessKey(), credentials.sessionToken());
    String again =
        AwsV4HttpSigner.create()
            .sign(
                r ->
                    r.identity(identity)
                        .request(request.build())
                        .payload(ContentStreamProvider.fromUtf8String(body))
                        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "sts")
                        .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                        .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(date, ZoneOffset.UTC)))
            .request()
            .firstMatchingHeader("Authorization")
            .orElse("");
    return again.equals(headers.get("authorization")) ? null : "bad signature";
  }

  private static List<String> concat(List<String> a, List<String> b) {
    return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
  }
}
