package dev.svc.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The client's cache: an immutable snapshot of what its key sees. A sync builds a new one from
 * the {@code /v1/sync} body and stream changes derive a new one from the current; the client
 * swaps the reference, so a reader never sees half of an update.
 *
 * @param revision the view's revision (-1 before the first sync)
 * @param configs key to JSON value (never to be modified: shared by every reader)
 * @param flags key to is_active
 * @param secrets key to secret (empty for public keys)
 */
record Snapshot(
    long revision,
    Map<String, JsonNode> configs,
    Map<String, Boolean> flags,
    Map<String, SecretEntry> secrets) {

  static final Snapshot EMPTY = new Snapshot(-1, Map.of(), Map.of(), Map.of());

  /** Reads a {@code /v1/sync} body; a {@link ServiceException} when it is not the contract's shape. */
  static Snapshot parse(JsonNode body) {
    if (body == null || !body.isObject()) throw invalid("the body is not an object");
    JsonNode revision = body.get("revision");
    if (revision == null || !revision.canConvertToExactIntegral() || !revision.canConvertToLong()) {
      throw invalid("revision is not an integer");
    }
    JsonNode configs = body.get("configs");
    JsonNode flags = body.get("flags");
    JsonNode secrets = body.get("secrets");
    if (configs == null || !configs.isObject()) throw invalid("configs is not an object");
    if (flags == null || !flags.isObject()) throw invalid("flags is not an object");
    if (secrets != null && !secrets.isObject()) throw invalid("secrets is not an object");

    Map<String, JsonNode> configMap = new HashMap<>();
    for (Map.Entry<String, JsonNode> e : configs.properties()) {
      configMap.put(e.getKey(), e.getValue());
    }
    Map<String, Boolean> flagMap = new HashMap<>();
    for (Map.Entry<String, JsonNode> e : flags.properties()) {
      if (!e.getValue().isBoolean()) throw invalid("flag " + e.getKey() + " is not a boolean");
      flagMap.put(e.getKey(), e.getValue().booleanValue());
    }
    Map<String, SecretEntry> secretMap = new HashMap<>();
    if (secrets != null) {
      for (Map.Entry<String, JsonNode> e : secrets.properties()) {
        secretMap.put(e.getKey(), parseSecret(e.getKey(), e.getValue(), Snapshot::invalid));
      }
    }
    return new Snapshot(
        revision.longValue(),
        Collections.unmodifiableMap(configMap),
        Collections.unmodifiableMap(flagMap),
        Collections.unmodifiableMap(secretMap));
  }

  /** Reads the {@code data:} of a {@code change} event; a {@link ServiceException} for any other shape. */
  static ItemChange parseChange(String data) {
    JsonNode event;
    try {
      event = Json.MAPPER.readTree(data);
    } catch (JsonProcessingException e) {
      throw new ServiceException("stream: a change event is not JSON", e);
    }
    if (event == null || !event.isObject()) throw invalidChange("not an object");
    JsonNode revision = event.get("revision");
    if (revision == null || !revision.isIntegralNumber()) throw invalidChange("revision is not an integer");
    String kind = text(event, "kind");
    if (!"config".equals(kind) && !"flag".equals(kind) && !"secret".equals(kind)) {
      throw invalidChange("bad kind");
    }
    String key = text(event, "key");
    if (key == null) throw invalidChange("key is not a string");
    String op = text(event, "op");
    if ("delete".equals(op)) return new ItemChange(revision.longValue(), kind, key, true, null, null);
    if (!"upsert".equals(op)) throw invalidChange("bad op");
    if (kind.equals("secret")) {
      return new ItemChange(
          revision.longValue(), kind, key, false, null, parseSecret(key, event, Snapshot::invalidChange));
    }
    JsonNode value = event.get("value");
    if (value == null) throw invalidChange("an upsert without a value");
    if (kind.equals("flag") && !value.isBoolean()) throw invalidChange("flag is not a boolean");
    return new ItemChange(revision.longValue(), kind, key, false, value, null);
  }

  /** A new snapshot with {@code changes} applied (each map copied at most once). */
  Snapshot apply(List<ItemChange> changes) {
    Map<String, JsonNode> newConfigs = null;
    Map<String, Boolean> newFlags = null;
    Map<String, SecretEntry> newSecrets = null;
    long newRevision = revision;
    for (ItemChange change : changes) {
      newRevision = Math.max(newRevision, change.revision());
      switch (change.kind()) {
        case "config" -> {
          if (newConfigs == null) newConfigs = new HashMap<>(configs);
          if (change.delete()) newConfigs.remove(change.key());
          else newConfigs.put(change.key(), change.value());
        }
        case "flag" -> {
          if (newFlags == null) newFlags = new HashMap<>(flags);
          if (change.delete()) newFlags.remove(change.key());
          else newFlags.put(change.key(), change.value().booleanValue());
        }
        default -> {
          if (newSecrets == null) newSecrets = new HashMap<>(secrets);
          if (change.delete()) newSecrets.remove(change.key());
          else newSecrets.put(change.key(), change.secret());
        }
      }
    }
    return new Snapshot(
        newRevision,
        newConfigs == null ? configs : Collections.unmodifiableMap(newConfigs),
        newFlags == null ? flags : Collections.unmodifiableMap(newFlags),
        newSecrets == null ? secrets : Collections.unmodifiableMap(newSecrets));
  }

  /** The items that differ between {@code before} and {@code after}: configs, flags, then secrets. */
  static List<Change> diff(Snapshot before, Snapshot after) {
    List<Change> changes = new ArrayList<>();
    diff("config", before.configs, after.configs, changes);
    diff("flag", before.flags, after.flags, changes);
    diff("secret", before.secrets, after.secrets, changes);
    return changes;
  }

  /** JsonNode, Boolean and SecretEntry compare by content. */
  private static void diff(String kind, Map<String, ?> before, Map<String, ?> after, List<Change> out) {
    if (before == after) return;
    after.forEach(
        (key, value) -> {
          if (!value.equals(before.get(key))) out.add(new Change(kind, key, "upsert"));
        });
    for (String key : before.keySet()) {
      if (!after.containsKey(key)) out.add(new Change(kind, key, "delete"));
    }
  }

  private static SecretEntry parseSecret(
      String key, JsonNode node, java.util.function.Function<String, ServiceException> invalid) {
    if (node == null || !node.isObject()) throw invalid.apply("secret " + key + " is not an object");
    JsonNode value = node.get("value");
    if (value == null || !value.isTextual()) throw invalid.apply("secret " + key + " has no string value");
    String type = text(node, "type");
    if (!"text".equals(type) && !"file".equals(type)) {
      throw invalid.apply("secret " + key + " has an unknown type");
    }
    JsonNode version = node.get("version");
    if (version == null || !version.isIntegralNumber()) {
      throw invalid.apply("secret " + key + " has no version");
    }
    JsonNode fileName = node.get("file_name");
    if (fileName != null && !fileName.isTextual() && !fileName.isNull()) {
      throw invalid.apply("secret " + key + " has a bad file_name");
    }
    return new SecretEntry(
        value.textValue(),
        type,
        version.longValue(),
        fileName == null || fileName.isNull() ? null : fileName.textValue());
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value != null && value.isTextual() ? value.textValue() : null;
  }

  private static ServiceException invalid(String reason) {
    return new ServiceException("sync: the snapshot does not follow the contract: " + reason);
  }

  private static ServiceException invalidChange(String reason) {
    return new ServiceException("stream: a change event does not follow the contract: " + reason);
  }
}
