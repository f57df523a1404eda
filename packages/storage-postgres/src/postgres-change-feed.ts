/**
 * The change feed of a PostgreSQL database: the shared follower of `@svc/storage-kysely`,
 * woken by LISTEN. Writers NOTIFY in their transaction, so the notification arrives once the
 * change is committed and readable; it only wakes the feed up, and the feed then reads the log
 * after the last seq it delivered. A notification lost while the listening connection was down
 * is made good by the read that follows every reconnect, and anything else by the periodic
 * catch-up read.
 */
import pg from 'pg';
import { ChangeLogFeed, type ChangeLogFeedOptions, type WakeUps } from '@svc/storage-kysely';

export interface PostgresChangeFeedOptions extends Omit<ChangeLogFeedOptions, 'wakeUps'> {
  /** Settings of the listening connection. */
  connection: pg.ClientConfig;
  /** The NOTIFY channel writers send on. */
  channel: string;
  /** LISTEN for commits (default true); without it the feed reads on catch-up and poke() only. */
  listen?: boolean;
  /**
   * Waits before reconnecting the listening connection: the first (default 50 ms), doubling up
   * to the longest (default 5000 ms), each ±50 % so instances do not reconnect in step.
   */
  minReconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** Errors of the listening connection (each is followed by a reconnect). */
  onListenError?: (error: Error) => void;
}

export class PostgresChangeFeed extends ChangeLogFeed {
  private readonly notifications: Notifications | undefined;

  constructor(options: PostgresChangeFeedOptions) {
    const notifications = (options.listen ?? true) ? new Notifications(options) : undefined;
    super({ ...options, wakeUps: notifications });
    this.notifications = notifications;
  }

  /** Whether the listening connection is up (for health checks and tests). */
  get listening(): boolean {
    return this.notifications?.connected ?? false;
  }
}

/** LISTEN on a connection of its own, reconnected (with backoff) whenever it is lost. */
class Notifications implements WakeUps {
  private readonly minReconnectDelayMs: number;
  private readonly maxReconnectDelayMs: number;
  private connection: pg.Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnects = 0;
  private wake: () => void = () => {};
  private stopped = false;

  constructor(private readonly options: PostgresChangeFeedOptions) {
    this.minReconnectDelayMs = options.minReconnectDelayMs ?? 50;
    this.maxReconnectDelayMs = options.maxReconnectDelayMs ?? 5000;
  }

  get connected(): boolean {
    return this.connection !== undefined;
  }

  async start(wake: () => void): Promise<void> {
    this.wake = wake;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
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
      if (this.stopped) return;
      this.options.onListenError?.(error ?? new Error('the listening connection ended'));
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', () => this.wake());
    try {
      await client.connect();
      await client.query(`listen ${quoteIdent(this.options.channel)}`);
    } catch (error) {
      onLost(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.stopped || lost) {
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
    this.reconnectTimer = setTimeout(
      () => {
        if (this.stopped) return;
        // Whatever was notified while nobody listened is in the log: read it once listening.
        void this.connect().then(() => this.wake());
      },
      delay * (0.5 + Math.random()),
    ).unref();
  }
}

/** A double-quoted SQL identifier. */
function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
