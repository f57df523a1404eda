package dev.svc.client;

import java.util.List;

/**
 * What changed in the client's cache, as one batch: a sync's new snapshot or the changes of one
 * chunk of the stream.
 *
 * @param revision the cache's revision after the change
 * @param source {@code sync} for a snapshot that replaced the cache, {@code stream} for pushed
 *     changes
 * @param changes every item that was added, changed or removed (never empty)
 */
public record ChangeSet(long revision, String source, List<Change> changes) {
  /** Copies {@code changes}, so the set stays as it was delivered. */
  public ChangeSet {
    changes = List.copyOf(changes);
  }
}
