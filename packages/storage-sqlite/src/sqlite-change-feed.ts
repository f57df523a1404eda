/**
 * The change feed of a SQLite file: the shared follower of `@svc/storage-kysely`, reading the log
 * on a read-only connection of its own, woken by what SQLite offers. `PRAGMA data_version`
 * changes whenever another connection (another process, or this process's store) commits, and
 * checking it costs microseconds: it is checked when a store rings the file's doorbell after a
 * commit (see doorbell.ts), and polled as well, for commits that ring none.
 */
import type { FSWatcher } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import {
  ChangeLogFeed,
  toChange,
  type ChangeLogFeedOptions,
  type ChangeRow,
  type WakeUps,
} from '@svc/storage-kysely';
import type { Change } from '@svc/domain';
import { bellPath, listenForBell } from './doorbell.ts';

/** The poll while the doorbell is watched: a fallback, for commits that ring no bell. */
const POLL_WITH_BELL_MS = 20;
/** The poll when the folder cannot be watched: it alone finds the commits. */
const POLL_WITHOUT_BELL_MS = 1;

export interface SqliteChangeFeedOptions extends Omit<
  ChangeLogFeedOptions,
  'readChanges' | 'wakeUps'
> {
  /** The database file (it must exist: open the store first). */
  file: string;
  /** Look the moment a store rings the doorbell after a commit (default true). */
  watch?: boolean;
  /**
   * How often `PRAGMA data_version` is checked, in ms (Infinity: never). Default: 20 while the
   * doorbell is watched, 1 when it is not (or cannot be).
   */
  pollIntervalMs?: number;
}

export class SqliteChangeFeed extends ChangeLogFeed {
  constructor(options: SqliteChangeFeedOptions) {
    const log = new SqliteLogWatch(options);
    super({
      ...options,
      readChanges: (afterSeq, limit) => log.read(afterSeq, limit),
      wakeUps: log,
    });
  }
}

/** The feed's connection to the file: reads the log, and says when it may have grown. */
class SqliteLogWatch implements WakeUps {
  private readonly conn: BetterSqlite3.Database;
  private readonly readChanges: BetterSqlite3.Statement<[number, number], ChangeRow>;
  private readonly readDataVersion: BetterSqlite3.Statement<[], number>;
  private pollTimer: NodeJS.Timeout | undefined;
  private bell: FSWatcher | undefined;
  private dataVersion = 0;
  private stopped = false;

  constructor(private readonly options: SqliteChangeFeedOptions) {
    this.conn = new BetterSqlite3(options.file, { readonly: true, fileMustExist: true });
    this.conn.pragma('busy_timeout = 5000');
    this.readChanges = this.conn.prepare<[number, number], ChangeRow>(
      'select * from changes where seq > ? order by seq limit ?',
    );
    // Prepared once: `pragma()` compiles its statement on every call, and this runs every poll.
    this.readDataVersion = this.conn.prepare<[], number>('PRAGMA data_version').pluck();
  }

  read(afterSeq: number, limit: number): Change[] {
    return this.readChanges.all(afterSeq, limit).map(toChange);
  }

  start(wake: () => void): void {
    this.dataVersion = this.readDataVersion.get()!;
    const look = (): void => {
      if (this.stopped) return;
      const version = this.readDataVersion.get()!;
      if (version === this.dataVersion) return;
      this.dataVersion = version;
      wake();
    };
    if (this.options.watch ?? true) {
      this.bell = listenForBell(bellPath(this.options.file), look, () => {
        // The folder can no longer be watched: poll at the pace that finds commits alone.
        this.bell = undefined;
        if (!this.stopped) this.poll(look);
      });
    }
    this.poll(look);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.pollTimer);
    this.bell?.close();
    // Safe while a listener runs: the feed checks that it is open before each read.
    this.conn.close();
  }

  private poll(look: () => void): void {
    clearInterval(this.pollTimer);
    const ms =
      this.options.pollIntervalMs ?? (this.bell ? POLL_WITH_BELL_MS : POLL_WITHOUT_BELL_MS);
    // unref: following the log never keeps the process alive by itself.
    this.pollTimer = Number.isFinite(ms) ? setInterval(look, ms).unref() : undefined;
  }
}
