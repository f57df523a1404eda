package dev.svc.client;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * The API key format of the wire contract, checked locally so that a mistyped or truncated key
 * fails at construction instead of as a 401 later: {@code svs_} (secret) or {@code svp_}
 * (public), then 34 random base62 characters and a 6-character base62 CRC-32 of everything
 * before them (CRC-32/IEEE as zlib computes it, alphabet {@code 0-9A-Za-z}, most significant
 * digit first, left-padded with {@code 0}).
 */
final class ApiKeys {
  static final String SECRET = "sk";
  static final String PUBLIC = "pk";

  private static final String BASE62 =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  private static final Pattern KEY_PATTERN = Pattern.compile("^(svs|svp)_[0-9A-Za-z]{40}$");
  private static final int CHECKSUM_LENGTH = 6;

  private ApiKeys() {}

  /**
   * The key type ({@code sk} or {@code pk}) of a well-formed key with a correct checksum, or
   * empty for anything else. Never echoes the key: callers build their messages without it.
   */
  static Optional<String> keyTypeOf(String apiKey) {
    if (apiKey == null || !KEY_PATTERN.matcher(apiKey).matches()) return Optional.empty();
    String body = apiKey.substring(0, apiKey.length() - CHECKSUM_LENGTH);
    if (!checksum(body).equals(apiKey.substring(apiKey.length() - CHECKSUM_LENGTH))) {
      return Optional.empty();
    }
    return Optional.of(apiKey.startsWith("svs_") ? SECRET : PUBLIC);
  }

  /** The 6-character base62 CRC-32 of {@code body} (ASCII). */
  static String checksum(String body) {
    CRC32 crc = new CRC32();
    crc.update(body.getBytes(StandardCharsets.US_ASCII));
    return toBase62(crc.getValue(), CHECKSUM_LENGTH);
  }

  static String toBase62(long value, int width) {
    StringBuilder out = new StringBuilder();
    for (long rest = value; rest > 0; rest /= 62) out.append(BASE62.charAt((int) (rest % 62)));
    while (out.length() < width) out.append('0');
    return out.reverse().toString();
  }
}
