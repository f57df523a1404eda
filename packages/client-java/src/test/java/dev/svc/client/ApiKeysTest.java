package dev.svc.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ApiKeysTest {
  @Test
  void acceptsTheContractsExamples() {
    assertThat(ApiKeys.keyTypeOf("svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN")).contains("sk");
    assertThat(ApiKeys.keyTypeOf("svp_y6vK111fY0yuOhDRk1XEmSyVZEMEhEmTyI1nZ71t")).contains("pk");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvM", // wrong checksum (the contract's example)
        "svx_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN", // unknown prefix
        "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHv", // 39 characters
        "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvNN", // 41 characters
        "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elH-N", // not base62
        "SVS_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN", // prefix is lower-case
        "svp_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN", // checksum covers the prefix
        ""
      })
  void rejectsAnythingElse(String key) {
    assertThat(ApiKeys.keyTypeOf(key)).isEmpty();
  }

  @Test
  void rejectsNull() {
    assertThat(ApiKeys.keyTypeOf(null)).isEmpty();
  }

  @Test
  void theChecksumIsZlibsCrc32InBase62() {
    // CRC-32/IEEE check value: crc32("123456789") = 0xCBF43926 = 3421780262.
    CRC32 crc = new CRC32();
    crc.update("123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertThat(crc.getValue()).isEqualTo(0xCBF43926L);
    assertThat(ApiKeys.toBase62(3421780262L, 6)).isEqualTo("3jZRME");
    assertThat(ApiKeys.checksum("123456789")).isEqualTo("3jZRME");
    // Left-padded with 0, most significant digit first.
    assertThat(ApiKeys.toBase62(0, 6)).isEqualTo("000000");
    assertThat(ApiKeys.toBase62(61, 6)).isEqualTo("00000z");
    assertThat(ApiKeys.toBase62(62, 6)).isEqualTo("000010");
    assertThat(ApiKeys.toBase62(0xFFFFFFFFL, 6)).isEqualTo("4gfFC3");
  }

  @Test
  void aKeyWithItsOwnChecksumIsValid() {
    String body = "svs_" + "A".repeat(34);
    assertThat(ApiKeys.keyTypeOf(body + ApiKeys.checksum(body))).contains("sk");
  }
}
