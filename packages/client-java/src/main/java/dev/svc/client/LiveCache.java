package dev.svc.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The cache of one key's view: an immutable {@link Snapshot} replaced atomically (so a reader
 * never sees half of an update), the files of its file secrets, and the listeners told what
 * changed. Reads never touch the network or a lock; a sync's snapshot and the stream's changes
 * replace it one at a time. {@link ServiceClient}'s reads check their arguments and document
 * the answers.
 */
final class LiveCache {
  /** What offering a sync's snapshot did: not taken when the stream brought newer changes. */
  record Swap(boolean taken, ChangeSet changed) {}

  private final FileSecrets files;
  private final Listeners<ChangeSet> listeners;
  private final ServiceLogger logger;
  /** The client's: a closing client applies no more changes from the stream. */
  private final BooleanSupplier closed;

  /** Guards replacement: a sync's snapshot and the stream's changes, one at a time. */
  private final Object lock = new Object();
  private volatile Snapshot snapshot = Snapshot.EMPTY;
  /** Guarded by lock: counts stream batches applied, so that a sync can tell it raced one. */
  private long streamBatches;

  LiveCache(FileSecrets files, ServiceLogger logger, BooleanSupplier closed) {
    this.files = files;
    this.listeners = new Listeners<>(logger);
    this.logger = logger;
    this.closed = closed;
  }

  /** The snapshot's revision: -1 before the first sync. */
  long revision() {
    return snapshot.revision();
  }

  Optional<JsonNode> config(String key) {
    JsonNode value = snapshot.configs().get(key);
    return value == null ? Optional.empty() : Optional.of(value.deepCopy());
  }

  <T> Optional<T> configAs(String key, Class<T> type) {
    JsonNode value = snapshot.configs().get(key);
    if (value == null) return Optional.empty();
    try {
      return Optional.ofNullable(Json.MAPPER.treeToValue(value, type));
    } catch (JsonProcessingException | IllegalArgumentException e) {
      String reason = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
      throw new IllegalArgumentException(
          "config \"" + key + "\" does not fit " + type.getSimpleName() + ": " + reason, e);
    }
  }

  /** Copies: a caller that changes a value does not change the cache. */
  Map<String, JsonNode> allConfigs() {
    Map<String, JsonNode> configs = snapshot.configs();
    Map<String, JsonNode> copy = new LinkedHashMap<>(configs.size() * 2);
    configs.forEach((key, value) -> copy.put(key, value.deepCopy()));
    return copy;
  }

  boolean flag(String key, boolean defaultValue) {
    Boolean value = snapshot.flags().get(key);
    return value == null ? defaultValue : value;
  }

  Map<String, Boolean> allFlags() {
    return new LinkedHashMap<>(snapshot.flags());
  }

  /** A secret's plaintext; {@link ServiceSecretNotFoundException} when the cache lacks it. */
  String secret(String key) {
    SecretEntry secret = snapshot.secrets().get(key);
    if (secret == null) throw new ServiceSecretNotFoundException(key);
    return secret.value();
  }

  Optional<String> secretFilePath(String key) {
    return Optional.ofNullable(files.pathOf(key));
  }

  ServiceClient.Subscription addChangeListener(Consumer<? super ChangeSet> listener) {
    return listeners.add(listener);
  }

  /** Read before a sync's request, for {@link #offer}. */
  long streamBatches() {
    synchronized (lock) {
      return streamBatches;
    }
  }

  /**
   * Takes a sync's snapshot, unless the stream applied changes since {@code batchesBefore} and
   * the snapshot is older than the cache: the stream's changes are newer, so they stay. The
   * caller tells the listeners ({@link #notifyChanged}) once its own bookkeeping is done.
   */
  Swap offer(Snapshot next, long batchesBefore) {
    synchronized (lock) {
      if (streamBatches != batchesBefore && next.revision() < snapshot.revision()) {
        return new Swap(false, null);
      }
      return new Swap(true, replace(next, "sync"));
    }
  }

  void notifyChanged(ChangeSet changed) {
    if (changed != null) listeners.notify(changed);
  }

  /** Applies the stream's changes not older than the cache's revision, and tells the listeners. */
  void applyStreamChanges(List<ItemChange> changes) {
    if (changes.isEmpty()) return;
    long revision;
    int applied;
    ChangeSet changed;
    synchronized (lock) {
      if (closed.getAsBoolean()) return;
      long current = snapshot.revision();
      List<ItemChange> fresh = changes.stream().filter(c -> c.revision() >= current).toList();
      if (fresh.isEmpty()) return;
      streamBatches++;
      changed = replace(snapshot.apply(fresh), "stream");
      revision = snapshot.revision();
      applied = fresh.size();
    }
    logger.debug("stream: " + applied + " change(s), revision " + revision);
    notifyChanged(changed);
  }

  /** Removes the files of file secrets and the listeners; reads keep answering from the cache. */
  void close() {
    synchronized (lock) {
      files.close();
    }
    listeners.clear();
  }

  /**
   * Swaps the cache for {@code next} (holding lock): files first, so that a visible secret's
   * file is on disk. Returns what changed when anyone listens, else null.
   */
  private ChangeSet replace(Snapshot next, String source) {
    Snapshot previous = snapshot;
    if (next.secrets() != previous.secrets()) files.update(next.secrets());
    snapshot = next;
    if (listeners.isEmpty()) return null;
    List<Change> changes = Snapshot.diff(previous, next);
    return changes.isEmpty() ? null : new ChangeSet(next.revision(), source, changes);
  }
}
