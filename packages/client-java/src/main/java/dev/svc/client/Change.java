package dev.svc.client;

/**
 * One changed item, as change listeners see it: which item, not its value (read that from the
 * client, which already holds it when the listener runs). A secret's change never carries its
 * value.
 *
 * @param kind {@code config}, {@code flag} or {@code secret}
 * @param key the item's key
 * @param op {@code upsert} (added or changed) or {@code delete} (gone from this key's view)
 */
public record Change(String kind, String key, String op) {
  /**
   * @return true for {@code op} {@code delete}
   */
  public boolean isDelete() {
    return "delete".equals(op);
  }
}
