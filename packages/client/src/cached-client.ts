/**
 * `CachedClient`: what the Node and the browser entry's clients share. The cache of one key's
 * view (an immutable snapshot), the conditional sync with quarantine, the change stream and its
 * reconnects, the time-to-live re-sync, pausing, the status, change listeners, reads and
 * `evaluateAB`. Each entry's `ServiceClient` extends it with its platform's parts: file secrets
 * and the write API in Node; public keys only, page visibility and a bootstrap in browsers.
 *
 * Private state uses `#` fields: minifiers shorten them, and the browser bundle has a budget.
 */
import type { ResolvedCommon } from './common-config.ts';
import { closedError, describe, ServiceQuarantinedError } from './errors.ts';
import { evaluateAB } from './evaluate-ab.ts';
import type { StreamEvent } from './event-parser.ts';
import {
  applyChanges,
  diff,
  parseChange,
  parseSnapshot,
  type Change,
  type ItemChange,
  type JsonValue,
  type Snapshot,
} from './snapshot.ts';
import { streamConnection, type StreamConnection } from './stream.ts';
import { unrefTimer, type Timer } from './timers.ts';
import { errorOf, Transport, type RequestPlatform } from './transport.ts';

/** What changed in the cache, as one batch. */
export interface ChangeSet {
  /** The cache's revision after the change. */
  revision: number;
  /** `sync` for a snapshot that replaced the cache, `stream` for pushed changes. */
  source: 'sync' | 'stream';
  /** Every item that was added, changed or removed; read the new values from the client. */
  changes: readonly Change[];
}

/** Called after the cache changed. Thrown errors are logged and otherwise ignored. */
export type ChangeListener = (changeSet: ChangeSet) => void;

/** What an app can show about the client; a new object whenever something in it changed. */
export interface ServiceStatus {
  /** The cache holds values: from a successful sync (or a browser's `bootstrap`). */
  readonly ready: boolean;
  /** The change stream is connected. */
  readonly streamConnected: boolean;
  /** When the last sync succeeded (a 304 counts), or null before the first. */
  readonly syncedAt: Date | null;
  /** The last sync or stream failure; null again once a sync succeeds or the stream connects. */
  readonly error: Error | null;
}

const EMPTY: Snapshot = {
  revision: -1,
  configs: new Map(),
  flags: new Map(),
  secrets: new Map(),
};

export abstract class CachedClient {
  protected snapshot: Snapshot = EMPTY;
  protected readonly transport: Transport;
  readonly #stream: StreamConnection;
  readonly #closed = new AbortController();
  #status: ServiceStatus = { ready: false, streamConnected: false, syncedAt: null, error: null };
  #etag: string | undefined;
  /** The time-to-live counts from here: the end of the last sync attempt or of the stream. */
  #freshAt = 0;
  #quarantinedUntil = 0;
  /** The stream asked for a sync that could not run yet. */
  #resyncPending = false;
  /** Counts stream batches applied, so a sync can tell it raced one. */
  #streamBatches = 0;
  #syncRunning: Promise<void> | undefined;
  #syncQueued: Promise<void> | undefined;
  #ttlTimer: Timer | undefined;
  #closing: Promise<void> | undefined;
  #streamWanted = false;
  #paused = false;
  readonly #listeners = new Set<ChangeListener>();
  readonly #statusListeners = new Set<() => void>();

  protected constructor(
    protected readonly config: ResolvedCommon,
    platform: RequestPlatform,
  ) {
    this.transport = new Transport({ ...config, closed: this.#closed.signal, platform });
    this.#stream = streamConnection(this.transport, config, platform, {
      resumeAfter: () => (this.snapshot.revision >= 0 ? this.snapshot.revision : undefined),
      onEvents: (events) => this.#onStreamEvents(events),
      onState: (connected) => this.#onStreamState(connected),
      onError: (error) => this.#failed(error),
    });
  }

  // ---- reads (from the cache) ----

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

  // ---- network ----

  /**
   * Syncs now, whatever the time-to-live says: a conditional `GET /v1/sync` (`If-None-Match`);
   * a new snapshot replaces the cache at once, a 304 restarts the time-to-live. Calls made while
   * a sync runs share one follow-up sync.
   *
   * @throws {@link ServiceQuarantinedError} when the key is quarantined (at once, without a
   *   request, until the server's `Retry-After` has passed).
   * @throws {@link ServiceUnauthorizedError} / {@link ServiceNotFoundError} on 401 / 404, and
   *   {@link ServiceError} for network or protocol failures. The cache is kept either way.
   */
  sync(): Promise<void> {
    if (this.#closed.signal.aborted) return Promise.reject(closedError());
    if (!this.#syncRunning) return this.#startSync();
    return (this.#syncQueued ??= this.#syncRunning
      .catch(() => {})
      .then(() => {
        this.#syncQueued = undefined;
        return this.#startSync();
      }));
  }

  /**
   * Evaluates flags for one user with AB Testing semantics (`POST /v1/flags/evaluate-ab`),
   * always over the network. Every requested key is in the answer; unknown or inactive flags
   * are `false`.
   *
   * @param keys 1 to 100 flag keys.
   * @param userId The user's id (1 to 256 characters): the rollout bucket is sticky per user.
   * @param attributes Targeting attributes (up to 50), such as `{ country: 'DE' }`.
   * @throws {@link ServiceAbAddonNotAvailableError} (403), {@link ServiceBillingError} (402),
   *   {@link ServiceUnauthorizedError} (401), {@link ServiceError} for anything else.
   */
  evaluateAB(
    keys: readonly string[],
    userId: string,
    attributes: Record<string, unknown> = {},
  ): Promise<Record<string, boolean>> {
    return evaluateAB(this.transport, keys, userId, attributes);
  }

  /**
   * Starts the change stream (idempotent). While it is connected, changes reach the cache
   * within milliseconds and the time-to-live re-sync pauses. It reconnects by itself with
   * backoff; a 401 or 404 stops it until the next `connectStream()`.
   */
  connectStream(): void {
    if (this.#closed.signal.aborted) throw closedError();
    this.#streamWanted = true;
    if (!this.#paused) this.#stream.start();
  }

  /** Stops the change stream (idempotent); resolves once the connection is closed. */
  disconnectStream(): Promise<void> {
    this.#streamWanted = false;
    return this.#stream.stop();
  }

  /**
   * Stops the stream and the background re-sync and ends requests in flight. Idempotent.
   * Reads keep answering from the last cache; network calls fail with a {@link ServiceError}.
   */
  close(): Promise<void> {
    return (this.#closing ??= (async () => {
      this.#closed.abort();
      this.scheduleTtl();
      await this.#stream.stop();
      this.onClose();
      this.#listeners.clear();
      this.#statusListeners.clear();
    })());
  }

  // ---- for the entries ----

  /** True once `close()` was called. */
  protected get closed(): boolean {
    return this.#closed.signal.aborted;
  }

  /** Called with the next snapshot just before it replaces the cache. */
  protected beforeSwap(_next: Snapshot): void {}

  /** Called once by `close()`, after the stream has stopped. */
  protected onClose(): void {}

  /** Takes a snapshot that did not come from this client's sync (a server-rendered bootstrap). */
  protected adopt(snapshot: Snapshot): void {
    this.snapshot = snapshot;
    this.#freshAt = Date.now();
    this.#setStatus({ ready: true });
  }

  /**
   * Pauses (or resumes) the background work: the stream and the time-to-live re-sync. A resumed
   * stream catches up from the cache's revision; a resumed time-to-live that passed meanwhile
   * syncs at once. Resolves once a paused stream is closed.
   */
  protected pause(paused: boolean): Promise<void> {
    this.#paused = paused;
    this.scheduleTtl();
    if (!paused && this.#streamWanted) this.#stream.start();
    return paused ? this.#stream.stop() : Promise.resolve();
  }

  /** The network is back: reconnect the stream at once (or sync, when there is no stream). */
  protected reconnectNow(): void {
    if (this.#paused) return;
    if (this.#streamWanted) this.#stream.retryNow();
    else void this.backgroundSync('online');
  }

  /** A sync in the background: a failure is logged and kept as the status's error. */
  protected backgroundSync(reason: string): Promise<void> {
    return this.sync().catch((error: unknown) => {
      if (this.#closed.signal.aborted) return;
      this.#resyncPending = true;
      this.scheduleTtl();
      const message = `background sync (${reason}) failed: ${describe(error)}`;
      if (error instanceof ServiceQuarantinedError) this.config.logger.info(message);
      else this.config.logger.error(message, error);
    });
  }

  /**
   * Plans the next background sync: a time-to-live after the cache was last known current while
   * no stream is connected, or a sync the stream asked for that had to wait (quarantine).
   */
  protected scheduleTtl(): void {
    clearTimeout(this.#ttlTimer);
    this.#ttlTimer = undefined;
    if (this.#closed.signal.aborted || this.#paused) return;
    if (this.#status.streamConnected && !this.#resyncPending) return;
    const due = Math.max(this.#freshAt + this.config.cacheTtlMs, this.#quarantinedUntil);
    this.#ttlTimer = unrefTimer(
      setTimeout(
        () => {
          this.#ttlTimer = undefined;
          if (!this.#syncRunning) void this.backgroundSync('time-to-live');
        },
        Math.max(0, due - Date.now()),
      ),
    );
  }

  // ---- internals ----

  #startSync(): Promise<void> {
    const running = this.#fetchSnapshot()
      .catch((error: unknown) => {
        this.#failed(error);
        throw error;
      })
      .finally(() => {
        if (this.#syncRunning === running) this.#syncRunning = undefined;
        this.#freshAt = Date.now();
        this.scheduleTtl();
      });
    return (this.#syncRunning = running);
  }

  async #fetchSnapshot(): Promise<void> {
    const { logger } = this.config;
    const waitS = Math.ceil((this.#quarantinedUntil - Date.now()) / 1000);
    if (waitS > 0) {
      throw new ServiceQuarantinedError(`sync: quarantined for another ${waitS} s`, {
        status: 429,
        code: 'sync_quarantined',
        retryAfter: waitS,
      });
    }
    const batchesBefore = this.#streamBatches;
    // Snapshots over 1 KiB come gzip-encoded then (fetch decodes; browsers set their own).
    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-encoding': 'gzip',
    };
    if (this.#etag) headers['if-none-match'] = this.#etag;
    const response = await this.transport.send('/v1/sync', { headers });
    if (response.status === 304) {
      await response.body?.cancel();
      logger.debug(`sync: 304 (revision ${this.snapshot.revision})`);
    } else if (!response.ok) {
      const error = await errorOf(response, 'sync');
      if (error instanceof ServiceQuarantinedError) {
        this.#quarantinedUntil = Date.now() + error.retryAfter * 1000;
        logger.info(`sync: quarantined for ${error.retryAfter} s`);
      }
      throw error;
    } else {
      const next = parseSnapshot(await this.transport.json(response, 'sync'));
      // Unless the stream brought newer changes while this answer was on its way: keep them.
      if (this.#streamBatches === batchesBefore || next.revision >= this.snapshot.revision) {
        this.#etag = response.headers.get('etag') ?? undefined;
        this.#replace(next, 'sync');
        logger.debug(`sync: revision ${next.revision}`);
      }
    }
    this.#resyncPending = false;
    this.#setStatus({ syncedAt: new Date(), error: null });
  }

  #failed(error: unknown): void {
    this.#setStatus({ error: error instanceof Error ? error : new Error(String(error)) });
  }

  #setStatus(change: Partial<ServiceStatus>): void {
    const now = this.#status;
    const next = { ...now, ...change };
    if ((Object.keys(change) as (keyof ServiceStatus)[]).every((k) => next[k] === now[k])) return;
    this.#status = next;
    notify(this.#statusListeners, undefined, this.config.logger);
  }

  /** Swaps the cache for `next` (after the entry's hook) and tells the listeners. */
  #replace(next: Snapshot, source: ChangeSet['source']): void {
    const previous = this.snapshot;
    this.beforeSwap(next);
    this.snapshot = next;
    this.#setStatus({ ready: true });
    if (this.#listeners.size === 0) return;
    const changes = diff(previous, next);
    if (changes.length > 0) {
      notify(this.#listeners, { revision: next.revision, source, changes }, this.config.logger);
    }
  }

  #onStreamEvents(events: readonly StreamEvent[]): void {
    const { logger } = this.config;
    let pending: ItemChange[] = [];
    const flush = () => {
      const fresh = pending.filter((change) => change.revision >= this.snapshot.revision);
      pending = [];
      if (fresh.length === 0) return;
      this.#streamBatches++;
      this.#replace(applyChanges(this.snapshot, fresh), 'stream');
      logger.debug(`stream: ${fresh.length} changes, revision ${this.snapshot.revision}`);
    };
    for (const { event, data } of events) {
      if (event === 'change') {
        try {
          pending.push(parseChange(data));
        } catch (error) {
          logger.error('stream: malformed change ignored', error);
        }
      } else if (event === 'resync') {
        flush();
        if (revisionOf(data) !== this.snapshot.revision) {
          void this.backgroundSync('resync');
        }
      }
    }
    flush();
  }

  #onStreamState(connected: boolean): void {
    // The stream kept the cache current until now: the time-to-live starts here.
    if (!connected) this.#freshAt = Date.now();
    this.#setStatus(
      connected ? { streamConnected: true, error: null } : { streamConnected: false },
    );
    this.scheduleTtl();
  }
}

function subscribe<T>(listeners: Set<T>, listener: T): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Calls each listener; one that throws is logged and the others still run. */
function notify<T>(
  listeners: Set<(value: T) => void>,
  value: T,
  logger: ResolvedCommon['logger'],
): void {
  for (const listener of listeners) {
    try {
      listener(value);
    } catch (error) {
      logger.error('a listener threw', error);
    }
  }
}

function revisionOf(data: string): unknown {
  try {
    return (JSON.parse(data) as { revision?: unknown }).revision;
  } catch {
    return undefined;
  }
}
