/**
 * `CachedClient`: what the Node and the browser entry's clients share, in three layers, one
 * concept each: the cache of one key's view with its reads, change listeners and status
 * (view-cache.ts); its sync, quarantine and time-to-live (snapshot-sync.ts); and here the change
 * stream and its reconnects, pausing, closing and `evaluateAB`. Each entry's `ServiceClient`
 * extends it with its platform's parts: file secrets and the write API in Node; public keys only,
 * page visibility and a bootstrap in browsers.
 *
 * Private state uses `#` fields: minifiers shorten them, and the browser bundle has a budget
 * (what the layers share is `protected`, and costs its name in the bundle).
 */
import { closedError } from './errors.ts';
import { evaluateAB } from './evaluate-ab.ts';
import type { StreamEvent } from './event-parser.ts';
import { applyChanges, parseChange, resyncRevision, type ItemChange } from './snapshot.ts';
import { SnapshotSync } from './snapshot-sync.ts';
import { streamConnection, type StreamConnection } from './stream.ts';

/** The synced view cache with its change stream: the base of both entries' `ServiceClient`. */
export abstract class CachedClient extends SnapshotSync {
  // A field, not the constructor's: the base's constructor (config, init, readSecret) is the
  // client's, and the transport exists by now.
  readonly #stream: StreamConnection = streamConnection(this.transport, this.config, {
    revision: () => this.snapshot.revision,
    onEvents: (events) => this.#onStreamEvents(events),
    onState: (connected) => this.streamState(connected),
    onError: (error) => this.failed(error),
  });
  #closing: Promise<void> | undefined;
  #streamWanted = false;

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
    if (!this.paused) this.#stream.start();
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
      this.stopSyncing();
      await this.#stream.stop();
      this.onClose();
      this.dropListeners();
    })());
  }

  /** Called once by `close()`, after the stream has stopped. */
  protected onClose(): void {}

  /**
   * Pauses (or resumes) the background work: the stream and the time-to-live re-sync. A resumed
   * stream catches up from the cache's revision; a resumed time-to-live that passed meanwhile
   * syncs at once. Resolves once a paused stream is closed.
   */
  protected override pause(paused: boolean): Promise<void> {
    super.pause(paused);
    if (!paused && this.#streamWanted) this.#stream.start();
    return paused ? this.#stream.stop() : Promise.resolve();
  }

  /** The network is back: reconnect the stream at once (or sync, when there is no stream). */
  protected reconnectNow(): void {
    if (this.paused) return;
    if (this.#streamWanted) this.#stream.retryNow();
    else void this.backgroundSync('online');
  }

  #onStreamEvents(events: readonly StreamEvent[]): void {
    let pending: ItemChange[] = [];
    const flush = () => {
      const next = applyChanges(this.snapshot, pending);
      pending = [];
      if (next === this.snapshot) return;
      this.replace(next, 'stream');
      this.config.logger.debug(`stream: revision ${next.revision}`);
    };
    for (const { event, data } of events) {
      if (event === 'change') {
        try {
          pending.push(parseChange(data, this.readSecret));
        } catch (error) {
          this.config.logger.error('stream: change ignored', error);
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
}
