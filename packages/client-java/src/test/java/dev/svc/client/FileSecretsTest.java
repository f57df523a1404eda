package dev.svc.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSecretsTest {
  @TempDir Path parent;

  private static final boolean POSIX =
      Path.of(".").getFileSystem().supportedFileAttributeViews().contains("posix");

  @Test
  void writesFileSecretsPrivatelyAndRemovesThemOnClose() throws Exception {
    FileSecrets files = new FileSecrets(parent, ServiceLogger.silent());
    files.update(
        Map.of(
            "tls.cert", new SecretEntry("PEM", "file", 1, "tls.pem"),
            "stripe.api_key", new SecretEntry("sk", "text", 1, null)));
    Path path = Path.of(files.pathOf("tls.cert"));
    assertThat(path).isAbsolute().hasContent("PEM").hasFileName("tls.pem");
    assertThat(files.pathOf("stripe.api_key")).isNull();
    if (POSIX) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path))).isEqualTo("rw-------");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path.getParent()))).isEqualTo("rwx------");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path.getParent().getParent())))
          .isEqualTo("rwx------");
    }
    files.close();
    assertThat(path).doesNotExist();
    assertThat(path.getParent().getParent()).doesNotExist();
    assertThat(files.pathOf("tls.cert")).isNull();
    // After close nothing is written again.
    files.update(Map.of("tls.cert", new SecretEntry("PEM", "file", 1, "tls.pem")));
    assertThat(files.pathOf("tls.cert")).isNull();
    try (Stream<Path> left = Files.list(parent)) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void rewritesARotatedSecretAndRemovesOneThatLeft() throws Exception {
    FileSecrets files = new FileSecrets(parent, ServiceLogger.silent());
    files.update(Map.of("tls.cert", new SecretEntry("ONE", "file", 1, "tls.pem")));
    Path first = Path.of(files.pathOf("tls.cert"));
    files.update(Map.of("tls.cert", new SecretEntry("TWO", "file", 2, "tls.pem")));
    assertThat(Path.of(files.pathOf("tls.cert"))).isEqualTo(first).hasContent("TWO");
    files.update(Map.of("tls.cert", new SecretEntry("THREE", "file", 3, "cert.pem")));
    Path renamed = Path.of(files.pathOf("tls.cert"));
    assertThat(renamed).hasContent("THREE").hasFileName("cert.pem");
    assertThat(first).doesNotExist();
    try (Stream<Path> inFolder = Files.list(renamed.getParent())) {
      assertThat(inFolder).containsExactly(renamed); // no temp files left
    }
    files.update(Map.of("tls.cert", new SecretEntry("text now", "text", 4, null)));
    assertThat(files.pathOf("tls.cert")).isNull();
    assertThat(renamed.getParent()).doesNotExist();
    files.close();
  }

  @Test
  void keepsFileNamesInsideTheirFolder() {
    assertThat(FileSecrets.fileName("tls.cert", "../../etc/passwd")).isEqualTo("tls.cert");
    assertThat(FileSecrets.fileName("tls.cert", "..")).isEqualTo("tls.cert");
    assertThat(FileSecrets.fileName("tls.cert", null)).isEqualTo("tls.cert");
    assertThat(FileSecrets.fileName("tls.cert", ".x.tmp")).isEqualTo("_.x.tmp");
    assertThat(FileSecrets.folderName("..hidden")).isEqualTo("%2E%2Ehidden");
    assertThat(FileSecrets.folderName("a/b")).isEqualTo("a%2Fb");
  }

  @Test
  void twoClientsGetTwoFolders() {
    FileSecrets a = new FileSecrets(parent, ServiceLogger.silent());
    FileSecrets b = new FileSecrets(parent, ServiceLogger.silent());
    Map<String, SecretEntry> secrets = Map.of("k", new SecretEntry("v", "file", 1, "f"));
    a.update(secrets);
    b.update(secrets);
    assertThat(a.pathOf("k")).isNotEqualTo(b.pathOf("k"));
    a.close();
    assertThat(Path.of(b.pathOf("k"))).hasContent("v");
    b.close();
  }
}
