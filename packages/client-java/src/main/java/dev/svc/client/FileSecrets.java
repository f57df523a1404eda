package dev.svc.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * File secrets on local disk: one private folder per client (mode 0700) under the temp folder,
 * a sub-folder per secret (0700), and the file itself (0600). A file is written to a temporary
 * name and moved into place, so a reader never sees half a secret; it is rewritten only when the
 * secret changed. The folder goes on {@link #close()} and, failing that, when the JVM exits.
 *
 * <p>Called with the client's cache lock held: one writer at a time; {@link #pathOf} may run
 * concurrently with it.
 */
final class FileSecrets {
  private static final boolean POSIX =
      FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  private static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");
  private static final Pattern PLAIN_NAME = Pattern.compile("^[^/\\\\\\x00]+$");
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Folders still on disk, removed when the JVM exits without {@code close()}. */
  private static final Set<Path> LIVE_FOLDERS = ConcurrentHashMap.newKeySet();
  private static volatile boolean exitHookInstalled;

  private record Materialized(SecretEntry secret, Path path) {}

  private final Path parent;
  private final ServiceLogger logger;
  private final Map<String, Materialized> files = new ConcurrentHashMap<>();
  private Path folder;
  private boolean closed;

  FileSecrets(Path parent, ServiceLogger logger) {
    this.parent = parent;
    this.logger = logger;
  }

  /** The absolute path of the file written for {@code key}, when it is a file secret on disk. */
  String pathOf(String key) {
    Materialized file = files.get(key);
    return file == null ? null : file.path().toString();
  }

  /** Brings the files in line with {@code secrets}: writes new and changed ones, removes the rest. */
  synchronized void update(Map<String, SecretEntry> secrets) {
    if (closed) return;
    for (Map.Entry<String, Materialized> entry : new HashMap<>(files).entrySet()) {
      SecretEntry secret = secrets.get(entry.getKey());
      if (secret == null || !secret.isFile()) remove(entry.getKey(), entry.getValue());
    }
    for (Map.Entry<String, SecretEntry> entry : secrets.entrySet()) {
      SecretEntry secret = entry.getValue();
      if (!secret.isFile()) continue;
      Materialized current = files.get(entry.getKey());
      if (current != null && current.secret().equals(secret)) continue;
      try {
        write(entry.getKey(), secret, current);
      } catch (IOException | UncheckedIOException e) {
        logger.error("writing the file for secret " + entry.getKey() + " failed", e);
      }
    }
  }

  /** Removes every file and the private folder; later updates do nothing. */
  synchronized void close() {
    closed = true;
    files.clear();
    if (folder == null) return;
    deleteTree(folder);
    LIVE_FOLDERS.remove(folder);
    folder = null;
  }

  private void write(String key, SecretEntry secret, Materialized current) throws IOException {
    Path dir = privateFolder().resolve(folderName(key));
    if (!Files.isDirectory(dir)) {
      if (POSIX) Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(DIR_MODE));
      else Files.createDirectories(dir);
    }
    if (POSIX) Files.setPosixFilePermissions(dir, DIR_MODE);
    Path path = dir.resolve(fileName(key, secret.fileName()));
    Path temp = dir.resolve("." + HexFormat.of().formatHex(randomBytes(6)) + ".tmp");
    FileAttribute<?>[] attributes =
        POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE_MODE)} : new FileAttribute<?>[0];
    try (FileChannel channel =
        FileChannel.open(
            temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), attributes)) {
      ByteBuffer bytes = ByteBuffer.wrap(secret.value().getBytes(StandardCharsets.UTF_8));
      while (bytes.hasRemaining()) channel.write(bytes);
      channel.force(true);
    } catch (IOException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    if (POSIX) Files.setPosixFilePermissions(temp, FILE_MODE);
    Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    if (current != null && !current.path().equals(path)) Files.deleteIfExists(current.path());
    files.put(key, new Materialized(secret, path.toAbsolutePath()));
    logger.debug("wrote file secret " + key + " version " + secret.version());
  }

  private void remove(String key, Materialized file) {
    files.remove(key);
    deleteTree(file.path().getParent());
    logger.debug("removed file secret " + key);
  }

  private Path privateFolder() throws IOException {
    if (folder == null) {
      Path base = parent != null ? parent : Path.of(System.getProperty("java.io.tmpdir"));
      Path created =
          POSIX
              ? Files.createTempDirectory(base, "service-client-", PosixFilePermissions.asFileAttribute(DIR_MODE))
              : Files.createTempDirectory(base, "service-client-");
      if (POSIX) Files.setPosixFilePermissions(created, DIR_MODE);
      folder = created.toAbsolutePath();
      removeOnExit(folder);
    }
    return folder;
  }

  private static void removeOnExit(Path folder) {
    LIVE_FOLDERS.add(folder);
    if (exitHookInstalled) return;
    synchronized (FileSecrets.class) {
      if (exitHookInstalled) return;
      exitHookInstalled = true;
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(() -> LIVE_FOLDERS.forEach(FileSecrets::deleteTree), "service-client-file-secrets"));
    }
  }

  static void deleteTree(Path root) {
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
              Files.deleteIfExists(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
              Files.deleteIfExists(dir);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (NoSuchFileException gone) {
      // already removed
    } catch (IOException e) {
      // best effort: what is left goes with the temp folder
    }
  }

  /** Secret keys are dot-separated {@code [A-Za-z0-9_-]} segments: safe as a folder name once encoded. */
  static String folderName(String key) {
    String encoded = URLEncoder.encode(key, StandardCharsets.UTF_8).replace("*", "%2A");
    int dots = 0;
    while (dots < encoded.length() && encoded.charAt(dots) == '.') dots++;
    return "%2E".repeat(dots) + encoded.substring(dots);
  }

  /** The secret's {@code file_name} when it is a plain name, else the key. */
  static String fileName(String key, String wanted) {
    if (wanted != null && PLAIN_NAME.matcher(wanted).matches() && !wanted.equals(".") && !wanted.equals("..")) {
      return wanted.startsWith(".") && wanted.endsWith(".tmp") ? "_" + wanted : wanted;
    }
    return folderName(key);
  }

  private static byte[] randomBytes(int n) {
    byte[] bytes = new byte[n];
    RANDOM.nextBytes(bytes);
    return bytes;
  }
}
