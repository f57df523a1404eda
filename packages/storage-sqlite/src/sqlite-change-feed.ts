/**
 * Follows the change log of a SQLite file on its own read-only connection. `PRAGMA
 * data_version` changes whenever another connection (another process, or this process's store)
 * commits, and checking it costs microseconds. It is checked when a store rings the file's
 * doorbell after a commit (see doorbell.ts), and polled as well, for commits that ring none.
 */
import type { FSWatcher } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import type { Change, ChangeFeed } from '@svc/domain';
import { toChange, type ChangeRow } from '@svc/storage-kysely';
import { bellPath, listenForBell } from './doorbell.ts';

/** The poll while the doorbell is watched: a fallback, for commits that ring no bell. */
const POLL_WITH_BELL_MS = 20;
/** The poll when the folder cannot be watched: it alone finds the commits. */
const POLL_WITHOUT_BELL_MS = 1;

export interface SqliteChangeFeedOptions {
  /** The database file (it must exist: open the store first). */
  file: string;
  /** Look the moment a store rings the doorbell after a commit (default true). */
  watch?: boolean;
  /**
   * How often `PRAGMA data_version` is checked, in ms (Infinity: never). Default: 20 while the
   * doorbell is watched, 1 when it is not (or cannot be).
   */
  pollIntervalMs?: number;
  /** How often the log is read regardless of data_version, in ms (default 1000; Infinity: never). */
  catchUpIntervalMs?: number;
  /** Changes handed to the listener at most at once (default 500). */
  batchSize?: number;
}

type Listener = (changes: Change[]) => void | Promise<void>;

/** A failing listener is retried on the next tick, then less and less often, up to this. */
const MAX_RETRY_DELAY_MS = 1000;

export class SqliteChangeFeed implements ChangeFeed {
  private readonly conn: BetterSqlite3.Database;
  private readonly readChanges: BetterSqlite3.Statement<[number, number], ChangeRow>;
  private readonly readDataVersionStatement: BetterSqlite3.Statement<[], number>;
  private readonly catchUpIntervalMs: number;
  private readonly batchSize: number;
  private readonly timers: NodeJS.Timeout[] = [];
  private pollTimer: NodeJS.Timeout | undefined;
  private bell: FSWatcher | undefined;
  private listener: Listener | undefined;
  /** The seq of the last change the listener accepted. */
  private position = 0;
  private dataVersion = 0;
  private draining: Promise<void> | undefined;
  /** A read was asked for while one ran: run once more when it ends. */
  private again = false;
  private failures = 0;
  private retryAt = 0;
  private closed = false;

  constructor(private readonly options: SqliteChangeFeedOptions) {
    this.catchUpIntervalMs = options.catchUpIntervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 500;
    this.conn = new BetterSqlite3(options.file, { readonly: true, fileMustExist: true });
    this.conn.pragma('busy_timeout = 5000');
    this.readChanges = this.conn.prepare<[number, number], ChangeRow>(
      'select * from changes where seq > ? order by seq limit ?',
    );
    // Prepared once: `pragma()` compiles its statement on every call, and this runs every poll.
    this.readDataVersionStatement = this.conn.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /**
   * Starts following after `afterSeq`. Resolves once the changes committed so far have been
   * offered to the listener (a throwing listener gets them again on the next tick).
   */
  async follow(afterSeq: number, listener: Listener): Promise<void> {
    if (this.closed) throw new Error('the change feed is closed');
    if (this.listener) throw new Error('the change feed is already following');
    this.listener = listener;
    this.position = afterSeq;
    this.dataVersion = this.readDataVersion();
    if (this.options.watch ?? true) {
      this.bell = listenForBell(
        bellPath(this.options.file),
        () => this.tick(),
        () => {
          // The folder can no longer be watched: poll at the pace that finds commits alone.
          this.bell = undefined;
          if (!this.closed) this.startPolling();
        },
      );
    }
    this.startPolling();
    this.every(this.catchUpIntervalMs, () => void this.read());
    await this.read();
  }

  poke(): void {
    if (this.listener && !this.closed) void this.read();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    clearInterval(this.pollTimer);
    this.bell?.close();
    // Safe while a listener runs: the read loop checks `closed` before touching the connection.
    this.conn.close();
  }

  private every(ms: number, fn: () => void): void {
    if (!Number.isFinite(ms)) return;
    // unref: following the log never keeps the process alive by itself.
    this.timers.push(setInterval(fn, ms).unref());
  }

  private pollIntervalMs(): number {
    return this.options.pollIntervalMs ?? (this.bell ? POLL_WITH_BELL_MS : POLL_WITHOUT_BELL_MS);
  }

  private startPolling(): void {
    clearInterval(this.pollTimer);
    const ms = this.pollIntervalMs();
    this.pollTimer = Number.isFinite(ms) ? setInterval(() => this.tick(), ms).unref() : undefined;
  }

  private tick(): void {
    if (this.closed) return;
    if (this.failures > 0) {
      if (Date.now() >= this.retryAt) void this.read();
      return;
    }
    const version = this.readDataVersion();
    if (version !== this.dataVersion) {
      this.dataVersion = version;
      void this.read();
    }
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
          changes = this.readChanges.all(this.position, this.batchSize).map(toChange);
          if (changes.length === 0) break;
          await this.listener(changes);
        } catch {
          // Keep the position: the same changes are offered again on a later tick.
          this.failures++;
          this.retryAt = Date.now() + this.retryDelay();
          return;
        }
        this.failures = 0;
        this.position = changes.at(-1)?.seq ?? this.position;
        if (changes.length < this.batchSize) break;
      }
    } while (this.again);
  }

  private retryDelay(): number {
    const poll = this.pollIntervalMs();
    const base = Number.isFinite(poll) ? poll : MAX_RETRY_DELAY_MS;
    return Math.min(base * 2 ** (this.failures - 1), MAX_RETRY_DELAY_MS);
  }

  private readDataVersion(): number {
    return this.readDataVersionStatement.get()!;
  }
}
