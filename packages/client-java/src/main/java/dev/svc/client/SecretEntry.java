package dev.svc.client;

/**
 * A secret as the cache holds it.
 *
 * @param value the plaintext
 * @param type {@code text} or {@code file}
 * @param version the secret's current version
 * @param fileName the file name of a file secret, or null
 */
record SecretEntry(String value, String type, long version, String fileName) {
  boolean isFile() {
    return "file".equals(type);
  }

  /** Never shows the value. */
  @Override
  public String toString() {
    return "SecretEntry[type=" + type + ", version=" + version + ", fileName=" + fileName + "]";
  }
}
