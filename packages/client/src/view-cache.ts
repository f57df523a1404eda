/**
 * The cache of one key's view, as an app reads it: an immutable snapshot that a sync or the
 * stream's changes replace whole (a reader never sees half an update), the change listeners told
 * what each replacement changed, and the status with its own listeners. The sync
 * (snapshot-sync.ts) and the stream (cached-client.ts) build on it.
 */
import {
  notify,
  subscribe,
  type ChangeListener,
  type ChangeSet,
  type ServiceStatus,
} from './client-status.ts';
import type { ResolvedCommon } from './common-config.ts';
import { diff, parseSnapshot, type JsonValue, type Snapshot } from './snapshot.ts';

/** The cache before its first sync (revision -1: there is nothing to resume after). */
const EMPTY = parseSnapshot({ revision: -1, configs: {}, flags: {} });

/** The base of the clients: the cache's reads, its change listeners and the status. */
export abstract class ViewCache {
  protected snapshot: Snapshot = EMPTY;
  #status: ServiceStatus = { ready: false, streamConnected: false, syncedAt: null, error: null };
  readonly #listeners = new Set<ChangeListener>();
  readonly #statusListeners = new Set<() => void>();

  protected constructor(protected readonly config: ResolvedCommon) {}

  /**
   * A config's value, or `undefined` when the key is absent (`null` is a config whose value is
   * JSON null). The value is frozen: it is shared with the cache.
   */
  getConfig(key: string): JsonValue | undefined {
    return this.snapshot.configs.get(key);
  }

  /** Every config of the cache, as a new object (public keys see `is_public` configs only). */
  getAllConfigs(): Record<string, JsonValue> {
    return Object.fromEntries(this.snapshot.configs);
  }

  /** A flag's `is_active`, or `defaultValue` (default `false`) when the flag is absent. */
  getFlag(key: string, defaultValue = false): boolean {
    return this.snapshot.flags.get(key) ?? defaultValue;
  }

  /** Every flag of the cache (key to `is_active`), as a new object. */
  getAllFlags(): Record<string, boolean> {
    return Object.fromEntries(this.snapshot.flags);
  }

  /** The client's status; the same object until something in it changes. */
  getStatus(): ServiceStatus {
    return this.#status;
  }

  /**
   * Calls `listener` after each change of the cache (a sync that brought something new, or
   * pushed changes). Returns a function that removes the listener.
   */
  onChange(listener: ChangeListener): () => void {
    return subscribe(this.#listeners, listener);
  }

  /** Calls `listener` after each change of {@link getStatus}; returns a function that stops. */
  onStatusChange(listener: () => void): () => void {
    return subscribe(this.#statusListeners, listener);
  }

  /** Called with the next snapshot just before it replaces the cache. */
  protected beforeSwap(_next: Snapshot): void {}

  /** Swaps the cache for `next` (after the entry's hook) and tells the listeners. */
  protected replace(next: Snapshot, source: ChangeSet['source']): void {
    const previous = this.snapshot;
    this.beforeSwap(next);
    this.snapshot = next;
    this.setStatus({ ready: true });
    if (this.#listeners.size === 0) return;
    const changes = diff(previous, next);
    if (changes.length > 0) {
      notify(this.#listeners, { revision: next.revision, source, changes }, this.config.logger);
    }
  }

  /** Merges `change` into the status; the status listeners hear of it when something differs. */
  protected setStatus(change: Partial<ServiceStatus>): void {
    const now = this.#status;
    const next = { ...now, ...change };
    if ((Object.keys(change) as (keyof ServiceStatus)[]).every((k) => next[k] === now[k])) return;
    this.#status = next;
    notify(this.#statusListeners, undefined, this.config.logger);
  }

  /** Keeps a sync's or the stream's failure as the status's error. */
  protected failed(error: unknown): void {
    this.setStatus({ error: error instanceof Error ? error : new Error(String(error)) });
  }

  /** Forgets every listener: a closed client changes no more. */
  protected dropListeners(): void {
    this.#listeners.clear();
    this.#statusListeners.clear();
  }
}
