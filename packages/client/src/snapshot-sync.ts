/**
 * How snapshots reach the cache besides the stream: the conditional sync (`If-None-Match`, one at
 * a time, the calls made meanwhile sharing one follow-up), the server's quarantine, and the
 * time-to-live re-sync in the background while no stream keeps the cache current. The requests'
 * transport and the client's closed state live here, since the sync is their first user. The
 * change stream, pausing and closing (cached-client.ts) build on it.
 */
import type { ResolvedCommon } from './common-config.ts';
import { closedError, describe, ServiceQuarantinedError } from './errors.ts';
import { parseSnapshot, type SecretReader, type Snapshot } from './snapshot.ts';
import { unrefTimer, type Timer } from './timers.ts';
import { readJson, Transport, type RequestInitOf } from './transport.ts';
import { ViewCache } from './view-cache.ts';

/** The view cache with its sync: on demand, conditional, quarantined, and by time-to-live. */
export abstract class SnapshotSync extends ViewCache {
  protected readonly transport: Transport;
  protected readonly readSecret: SecretReader | undefined;
  /** The background work is paused (a hidden page): no time-to-live re-sync, no stream. */
  protected paused = false;
  readonly #closed = new AbortController();
  #etag: string | null = null;
  /** The time-to-live counts from here: the end of the last sync attempt or of the stream. */
  #freshAt = 0;
  #quarantinedUntil = 0;
  /** The stream asked for a sync that could not run yet. */
  #resyncPending = false;
  #syncRunning: Promise<void> | undefined;
  #syncQueued: Promise<void> | undefined;
  #ttlTimer: Timer | undefined;

  /**
   * @param init Extra `fetch` options of every request (Node's headers, a browser's `cache`).
   * @param readSecret Reads secrets (the Node entry); without it, a secret is off the contract
   *   (browsers).
   */
  protected constructor(config: ResolvedCommon, init: RequestInitOf, readSecret?: SecretReader) {
    super(config);
    this.readSecret = readSecret;
    this.transport = new Transport(config, this.#closed.signal, init);
  }

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

  /** True once `close()` was called. */
  protected get closed(): boolean {
    return this.#closed.signal.aborted;
  }

  /** Takes a snapshot that did not come from this client's sync (a server-rendered bootstrap). */
  protected adopt(snapshot: Snapshot): void {
    this.replace(snapshot, 'sync');
    this.#freshAt = Date.now();
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

  /** The stream connected, or stopped being connected: it stands in for the time-to-live. */
  protected streamState(connected: boolean): void {
    // The stream kept the cache current until now: the time-to-live starts here.
    if (!connected) this.#freshAt = Date.now();
    this.setStatus(connected ? { streamConnected: true, error: null } : { streamConnected: false });
    this.#scheduleTtl();
  }

  /** Pauses (or resumes) the time-to-live re-sync; one that passed meanwhile runs at once. */
  protected pause(paused: boolean): void {
    this.paused = paused;
    this.#scheduleTtl();
  }

  /** Ends requests in flight and the time-to-live re-sync for good (`close()`). */
  protected stopSyncing(): void {
    this.#closed.abort();
    this.#scheduleTtl();
  }

  /**
   * Plans the next background sync: a time-to-live after the cache was last known current while
   * no stream is connected, or a sync the stream asked for that had to wait (quarantine).
   */
  #scheduleTtl(): void {
    clearTimeout(this.#ttlTimer);
    if (this.closed || this.paused) return;
    if (this.getStatus().streamConnected && !this.#resyncPending) return;
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
        this.failed(error);
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
      const next = parseSnapshot(await readJson(response, 'sync'), this.readSecret);
      // Unless the stream brought newer changes while this answer was on its way: keep them.
      if (this.snapshot === before || next.revision >= this.snapshot.revision) {
        this.#etag = response.headers.get('etag');
        this.replace(next, 'sync');
      }
    }
    this.config.logger.debug(`sync: ${response.status}, revision ${this.snapshot.revision}`);
    this.#resyncPending = false;
    this.setStatus({ syncedAt: new Date(), error: null });
  }
}
