/**
 * `CachedClient`: what the Node and the browser entry's clients share. The cache of one key's
 * view (an immutable snapshot), the conditional sync with quarantine, the change stream and its
 * reconnects, the time-to-live re-sync, pausing, the status, change listeners, reads and
 * `evaluateAB`. Each entry's `ServiceClient` extends it with its platform's parts: file secrets
 * and the write API in Node; public keys only, page visibility and a bootstrap in browsers.
 *
 * Private state uses `#` fields: minifiers shorten them, and the browser bundle has a budget.
 * The status, the change sets and the listener helpers are in client-status.ts.
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
  resyncRevision,
  type ItemChange,
  type JsonValue,
  type SecretReader,
  type Snapshot,
} from './snapshot.ts';
import { streamConnection, type StreamConnection } from './stream.ts';
import { unrefTimer, type Timer } from './timers.ts';
import { readJson, Transport, type RequestInitOf } from './transport.ts';
// Last: the bundle then has the listener helpers next to the class (a few bytes less gzipped).
import {
  notify,
  subscribe,
  type ChangeListener,
  type ChangeSet,
  type ServiceStatus,
} from './client-status.ts';

/** The cache before its first sync (revision -1: there is nothing to resume after). */
const EMPTY = parseSnapshot({ revision: -1, configs: {}, flags: {} });

export abstract class CachedClient {
  protected snapshot: Snapshot = EMPTY;
  protected readonly transport: Transport;
  readonly #stream: StreamConnection;
  readonly #readSecret: SecretReader | undefined;
  readonly #closed = new AbortController();
  #status: ServiceStatus = { ready: false, streamConnected: false, syncedAt: null, error: null };
  #etag: string | null = null;
  /** The time-to-live counts from here: the end of the last sync attempt or of the stream. */
  #freshAt = 0;
  #quarantinedUntil = 0;
  /** The stream asked for a sync that could not run yet. */
  #resyncPending = false;
  #syncRunning: Promise<void> | undefined;
  #syncQueued: Promise<void> | undefined;
  #ttlTimer: Timer | undefined;
  #closing: Promise<void> | undefined;
  #streamWanted = false;
  #paused = false;
  readonly #listeners = new Set<ChangeListener>();
  readonly #statusListeners = new Set<() => void>();

  /**
   * @param init Extra `fetch` options of every request (Node's headers, a browser's `cache`).
   * @param readSecret Reads secrets (the Node entry); without it, a secret is off the contract
   *   (browsers).
   */
  protected constructor(
    protected readonly config: ResolvedCommon,
    init: RequestInitOf,
    readSecret?: SecretReader,
  ) {
    this.#readSecret = readSecret;
    this.transport = new Transport(config, this.#closed.signal, init);
    this.#stream = streamConnection(this.transport, config, {
      revision: () => this.snapshot.revision,
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
    if (this.closed) return Promise.reject(closedError());
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
    if (this.closed) throw closedError();
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
      this.#scheduleTtl();
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
    this.#replace(snapshot, 'sync');
    this.#freshAt = Date.now();
  }

  /**
   * Pauses (or resumes) the background work: the stream and the time-to-live re-sync. A resumed
   * stream catches up from the cache's revision; a resumed time-to-live that passed meanwhile
   * syncs at once. Resolves once a paused stream is closed.
   */
  protected pause(paused: boolean): Promise<void> {
    this.#paused = paused;
    this.#scheduleTtl();
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
      if (this.closed) return;
      this.#resyncPending = true;
      this.#scheduleTtl();
      const message = `background sync (${reason}) failed: ${describe(error)}`;
      if (error instanceof ServiceQuarantinedError) this.config.logger.info(message);
      else this.config.logger.error(message, error);
    });
  }

  // ---- internals ----

  /**
   * Plans the next background sync: a time-to-live after the cache was last known current while
   * no stream is connected, or a sync the stream asked for that had to wait (quarantine).
   */
  #scheduleTtl(): void {
    clearTimeout(this.#ttlTimer);
    if (this.closed || this.#paused) return;
    if (this.#status.streamConnected && !this.#resyncPending) return;
    const due = Math.max(this.#freshAt + this.config.cacheTtlMs, this.#quarantinedUntil);
    // A time already past runs at once (a negative delay is 0).
    this.#ttlTimer = unrefTimer(
      setTimeout(() => {
        if (!this.#syncRunning) void this.backgroundSync('time-to-live');
      }, due - Date.now()),
    );
  }

  #startSync(): Promise<void> {
    return (this.#syncRunning = this.#fetchSnapshot()
      .catch((error: unknown) => {
        // The server's quarantine (the local refusal has no HTTP status): no request until it ends.
        if (error instanceof ServiceQuarantinedError && error.status) {
          this.#quarantinedUntil = Date.now() + error.retryAfter * 1000;
          this.config.logger.info(`sync: quarantined for ${error.retryAfter} s`);
        }
        this.#failed(error);
        throw error;
      })
      .finally(() => {
        // A queued follow-up sync starts only after this: the running one is this one.
        this.#syncRunning = undefined;
        this.#freshAt = Date.now();
        this.#scheduleTtl();
      }));
  }

  async #fetchSnapshot(): Promise<void> {
    const { logger } = this.config;
    const waitS = Math.ceil((this.#quarantinedUntil - Date.now()) / 1000);
    if (waitS > 0) {
      throw new ServiceQuarantinedError(`sync: quarantined for ${waitS} s`, { retryAfter: waitS });
    }
    // Syncs run one at a time: only the stream can change the cache while this one runs.
    const before = this.snapshot;
    const response = await this.transport.send('/v1/sync', 'sync', {
      headers: this.#etag ? { 'if-none-match': this.#etag } : {},
    });
    // A 304 (no body) confirms the cache.
    if (response.status !== 304) {
      const next = parseSnapshot(await readJson(response, 'sync'), this.#readSecret);
      // Unless the stream brought newer changes while this answer was on its way: keep them.
      if (this.snapshot === before || next.revision >= this.snapshot.revision) {
        this.#etag = response.headers.get('etag');
        this.#replace(next, 'sync');
      }
    }
    logger.debug(`sync: ${response.status}, revision ${this.snapshot.revision}`);
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
      const next = applyChanges(this.snapshot, pending);
      pending = [];
      if (next === this.snapshot) return;
      this.#replace(next, 'stream');
      logger.debug(`stream: revision ${next.revision}`);
    };
    for (const { event, data } of events) {
      if (event === 'change') {
        try {
          pending.push(parseChange(data, this.#readSecret));
        } catch (error) {
          logger.error('stream: change ignored', error);
        }
      } else if (event === 'resync') {
        flush();
        if (resyncRevision(data) !== this.snapshot.revision) {
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
    this.#scheduleTtl();
  }
}
