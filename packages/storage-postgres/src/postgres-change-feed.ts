/**
 * Follows the change log of a PostgreSQL database. Writers NOTIFY in their transaction, so the
 * notification arrives once the change is committed and readable; it only wakes the feed up,
 * and the feed then reads the log after the last seq it delivered. The log is the truth: a
 * notification lost while the listening connection was down is made good by the read that
 * follows every reconnect, and anything else by the periodic catch-up read.
 */
import pg from 'pg';
import type { Change, ChangeFeed } from '@svc/domain';

export interface PostgresChangeFeedOptions {
  /** Settings of the listening connection. */
  connection: pg.ClientConfig;
  /** The NOTIFY channel writers send on. */
  channel: string;
  /** Reads the log: rows with `seq > afterSeq`, in order, at most `limit`. */
  readChanges: (afterSeq: number, limit: number) => Promise<Change[]>;
  /** LISTEN for commits (default true); without it the feed reads on catch-up and poke() only. */
  listen?: boolean;
  /** How often the log is read regardless of notifications, in ms (default 1000; Infinity: never). */
  catchUpIntervalMs?: number;
  /** Changes handed to the listener at most at once (default 500). */
  batchSize?: number;
  /**
   * Waits before reconnecting the listening connection: the first (default 50 ms), doubling up
   * to the longest (default 5000 ms), each ±50 % so instances do not reconnect in step.
   */
  minReconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** Errors of the listening connection (each is followed by a reconnect). */
  onListenError?: (error: Error) => void;
}

type Listener = (changes: Change[]) => void | Promise<void>;

/** A failing read or listener is retried after this, doubling up to MAX_RETRY_DELAY_MS. */
const FIRST_RETRY_DELAY_MS = 5;
const MAX_RETRY_DELAY_MS = 1000;

export class PostgresChangeFeed implements ChangeFeed {
  private readonly catchUpIntervalMs: number;
  private readonly batchSize: number;
  private readonly minReconnectDelayMs: number;
  private readonly maxReconnectDelayMs: number;
  private readonly timers = new Set<NodeJS.Timeout>();
  private listener: Listener | undefined;
  /** The seq of the last change the listener accepted. */
  private position = 0;
  private draining: Promise<void> | undefined;
  /** A read was asked for while one ran: run once more when it ends. */
  private again = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private connection: pg.Client | undefined;
  private reconnects = 0;
  private closed = false;

  constructor(private readonly options: PostgresChangeFeedOptions) {
    this.catchUpIntervalMs = options.catchUpIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 500;
    this.minReconnectDelayMs = options.minReconnectDelayMs ?? 50;
    this.maxReconnectDelayMs = options.maxReconnectDelayMs ?? 5000;
  }

  /**
   * Starts following after `afterSeq`: listens first, then reads, so nothing committed in
   * between is missed. Resolves once the changes committed so far have been offered to the
   * listener. An unreachable database does not fail it: the feed keeps trying in the background.
   */
  async follow(afterSeq: number, listener: Listener): Promise<void> {
    if (this.closed) throw new Error('the change feed is closed');
    if (this.listener) throw new Error('the change feed is already following');
    this.listener = listener;
    this.position = afterSeq;
    if (this.options.listen ?? true) await this.connect();
    if (Number.isFinite(this.catchUpIntervalMs)) {
      // unref: following the log never keeps the process alive by itself.
      const timer = setInterval(() => void this.read(), this.catchUpIntervalMs).unref();
      this.timers.add(timer);
    }
    await this.read();
  }

  poke(): void {
    if (this.listener && !this.closed) void this.read();
  }

  /** Whether the listening connection is up (for health checks and tests). */
  get listening(): boolean {
    return this.connection !== undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    clearTimeout(this.retryTimer);
    const connection = this.connection;
    this.connection = undefined;
    await connection?.end().catch(() => {});
  }

  /** Opens the listening connection; on failure, schedules another attempt. */
  private async connect(): Promise<void> {
    const client = new pg.Client({
      ...this.options.connection,
      application_name: 'svc-change-feed',
    });
    let lost = false;
    const onLost = (error?: Error): void => {
      if (lost) return;
      lost = true;
      if (this.connection === client) this.connection = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => {});
      if (this.closed) return;
      this.options.onListenError?.(error ?? new Error('the listening connection ended'));
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', () => this.poke());
    try {
      await client.connect();
      await client.query(`listen ${quoteIdent(this.options.channel)}`);
    } catch (error) {
      onLost(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.closed || lost) {
      await client.end().catch(() => {});
      return;
    }
    this.connection = client;
    this.reconnects = 0;
  }

  private scheduleReconnect(): void {
    const delay = Math.min(
      this.minReconnectDelayMs * 2 ** this.reconnects++,
      this.maxReconnectDelayMs,
    );
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (this.closed) return;
        // Whatever was notified while nobody listened is in the log: read it once listening.
        void this.connect().then(() => this.poke());
      },
      delay * (0.5 + Math.random()),
    );
    this.timers.add(timer.unref());
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
          changes = await this.options.readChanges(this.position, this.batchSize);
          if (changes.length === 0 || this.closed) {
            this.failures = 0;
            break;
          }
          await this.listener(changes);
        } catch {
          // Keep the position: the same changes are offered again after a short wait.
          this.scheduleRetry();
          return;
        }
        this.failures = 0;
        this.position = changes.at(-1)?.seq ?? this.position;
        if (changes.length < this.batchSize) break;
      }
    } while (this.again);
  }

  private scheduleRetry(): void {
    this.failures++;
    clearTimeout(this.retryTimer);
    if (this.closed) return;
    const delay = Math.min(FIRST_RETRY_DELAY_MS * 2 ** (this.failures - 1), MAX_RETRY_DELAY_MS);
    this.retryTimer = setTimeout(() => void this.read(), delay).unref();
  }
}

/** A double-quoted SQL identifier. */
function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
