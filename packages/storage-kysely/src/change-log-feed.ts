/**
 * The one follower of a change log, behind the change feeds of both adapters. It keeps the
 * position (the seq of the last change the listener accepted), reads after it in batches, runs
 * one drain at a time (a wake-up during a drain runs it once more), offers a batch that failed
 * (its read or its listener) again from the same position after a growing wait, and reads
 * periodically in case a wake-up was lost. What wakes it is the adapter's own (`WakeUps`): a
 * doorbell and `PRAGMA data_version` on SQLite, LISTEN on PostgreSQL. The log is the truth;
 * a wake-up only says "look now".
 */
import type { Change, ChangeFeed } from '@svc/domain';

/** What tells a feed that new changes may be in the log. */
export interface WakeUps {
  /**
   * Starts calling `wake`. Resolves once wake-ups flow (or, when they cannot yet, once the
   * source is trying again by itself: it never rejects for an unreachable database).
   */
  start(wake: () => void): void | Promise<void>;
  /** Stops for good (called once, by `close()`). */
  stop(): void | Promise<void>;
}

export interface ChangeLogFeedOptions {
  /** Reads the log: rows with `seq > afterSeq`, in order, at most `limit`. */
  readChanges: (afterSeq: number, limit: number) => Change[] | Promise<Change[]>;
  /** What wakes the feed; without it, it reads on `follow()`, `poke()` and catch-up only. */
  wakeUps?: WakeUps;
  /** How often the log is read regardless of wake-ups, in ms (default 1000; Infinity: never). */
  catchUpIntervalMs?: number;
  /** Changes handed to the listener at most at once (default 500). */
  batchSize?: number;
  /** The wait before a failed batch is offered again (default 5 ms), doubling up to the max. */
  minRetryDelayMs?: number;
  /** The longest wait between attempts at a failing batch (default 1000 ms). */
  maxRetryDelayMs?: number;
  /**
   * Told of every failed read or listener call, with how many failed in a row. The feed keeps
   * its position and offers the same changes again: nothing is skipped, but nothing moves on
   * until the failure passes, so it deserves a log line.
   */
  onError?: (error: Error, failures: number) => void;
}

type Listener = (changes: Change[]) => void | Promise<void>;

export class ChangeLogFeed implements ChangeFeed {
  private readonly catchUpIntervalMs: number;
  private readonly batchSize: number;
  private readonly minRetryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private catchUpTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private listener: Listener | undefined;
  private lastSeq = 0;
  private draining: Promise<void> | undefined;
  /** A read was asked for while one ran: run once more when it ends. */
  private again = false;
  private failures = 0;
  private closed = false;

  constructor(private readonly options: ChangeLogFeedOptions) {
    this.catchUpIntervalMs = options.catchUpIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 500;
    this.minRetryDelayMs = options.minRetryDelayMs ?? 5;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 1000;
  }

  /** The seq of the last change the listener accepted. */
  get position(): number {
    return this.lastSeq;
  }

  /**
   * Starts following after `afterSeq`: wake-ups first, then a read, so that nothing committed
   * in between is missed. Resolves once the changes committed so far have been offered to the
   * listener (a failing batch is offered again in the background).
   */
  async follow(afterSeq: number, listener: Listener): Promise<void> {
    if (this.closed) throw new Error('the change feed is closed');
    if (this.listener) throw new Error('the change feed is already following');
    this.listener = listener;
    this.lastSeq = afterSeq;
    await this.options.wakeUps?.start(() => this.poke());
    if (this.closed) return;
    if (Number.isFinite(this.catchUpIntervalMs)) {
      // unref: following the log never keeps the process alive by itself.
      this.catchUpTimer = setInterval(() => this.poke(), this.catchUpIntervalMs).unref();
    }
    await this.read();
  }

  /** Reads now; while a failed batch waits for its retry, the retry does. */
  poke(): void {
    if (this.listener && !this.closed && this.retryTimer === undefined) void this.read();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.catchUpTimer);
    clearTimeout(this.retryTimer);
    // A drain under way stops at its next step: it checks `closed` before each read.
    await this.options.wakeUps?.stop();
  }

  /** Reads and delivers what is pending; never runs twice at once. */
  private read(): Promise<void> {
    if (this.draining) {
      this.again = true;
      return this.draining;
    }
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      for (;;) {
        if (this.closed || !this.listener) return;
        let changes: Change[];
        try {
          changes = await this.options.readChanges(this.lastSeq, this.batchSize);
          if (this.closed) return;
          if (changes.length > 0) await this.listener(changes);
        } catch (error) {
          this.retryLater(error);
          return;
        }
        this.failures = 0;
        const last = changes.at(-1);
        if (!last) break;
        this.lastSeq = last.seq;
        if (changes.length < this.batchSize) break;
      }
    } while (this.again);
  }

  /** Keeps the position: the same changes are offered again after a growing wait. */
  private retryLater(error: unknown): void {
    this.failures++;
    if (this.closed) return;
    this.options.onError?.(
      error instanceof Error ? error : new Error(String(error)),
      this.failures,
    );
    const delay = Math.min(this.minRetryDelayMs * 2 ** (this.failures - 1), this.maxRetryDelayMs);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.poke();
    }, delay).unref();
  }
}
