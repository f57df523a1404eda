/**
 * The embedded Store: one SQLite file, one connection per store, WAL so readers never wait for
 * the writer, and BEGIN IMMEDIATE so writers in several processes queue instead of failing.
 */
import BetterSqlite3 from 'better-sqlite3';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { Kysely, Migrator, SqliteDialect, sql, type SqliteDatabase } from 'kysely';
import {
  StorageUnavailableError,
  systemClock,
  type Clock,
  type ProjectState,
  type Store,
  type StoreWriter,
  type WriteRateLimiter,
  type WriteRateLimitOptions,
} from '@svc/domain';
import {
  KyselyReader,
  KyselyWriter,
  WRITE_RATE_LIMIT_PREFIX,
  writeRateLimiter,
  type Database,
} from '@svc/storage-kysely';
import { Doorbell, bellPath } from './doorbell.ts';
import { migrations } from './migrations.ts';
import { SqliteChangeFeed, type SqliteChangeFeedOptions } from './sqlite-change-feed.ts';
import { sqliteStoreDialect } from './sqlite-store-dialect.ts';

/** How long a writer waits for another connection's write lock before it gives up. */
export const BUSY_TIMEOUT_MS = 5000;

export interface SqliteStoreOptions {
  /** Path of the database file; created (and migrated) when missing. */
  file: string;
  /** Source of `created_at`, `updated_at` and change times; the system clock by default. */
  clock?: Clock;
}

/** Opens (creating and migrating as needed) the SQLite database at `options.file`. */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteStore> {
  const sqlite = new BetterSqlite3(options.file);
  try {
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    sqlite.pragma('journal_mode = WAL');
    // FULL: a commit is on disk before it is acknowledged, also across a power loss.
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('foreign_keys = ON');
    const store = new SqliteStore(sqlite, options.file, options.clock ?? systemClock);
    await store.migrate();
    return store;
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

/**
 * Reads go straight to the database; writes only through `transaction()`. Within one store,
 * transactions and reads share one connection and run one at a time, so inside a transaction
 * use the `tx` it gives you: calling the store itself there would wait for ever.
 */
export class SqliteStore extends KyselyReader implements Store {
  private readonly feeds = new Set<SqliteChangeFeed>();
  private readonly bell: Doorbell;
  private closed = false;

  /** Use `openSqliteStore`, which also migrates. */
  constructor(
    private readonly sqlite: BetterSqlite3.Database,
    /** The database file, for feeds that open their own connection to it. */
    readonly file: string,
    private readonly clock: Clock,
  ) {
    super(
      new Kysely<Database>({ dialect: new SqliteDialect({ database: keepStatements(sqlite) }) }),
      sqliteStoreDialect,
    );
    this.bell = new Doorbell(bellPath(file));
  }

  async transaction<T>(fn: (tx: StoreWriter) => Promise<T>): Promise<T> {
    return this.db
      .connection()
      .execute((conn) =>
        this.inWriteTransaction(conn, () =>
          fn(new KyselyWriter(conn, { dialect: this.dialect, clock: this.clock })),
        ),
      );
  }

  /** Reads the project in one snapshot, so its revision matches its values. */
  override async loadProjectState(projectId: string): Promise<ProjectState | undefined> {
    return this.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      try {
        return await new KyselyReader(conn, this.dialect).loadProjectState(projectId);
      } finally {
        if (this.sqlite.inTransaction) await sql`commit`.execute(conn);
      }
    });
  }

  /**
   * A feed of this database's change log on its own read-only connection (closed with the
   * store). It looks when a store in any process rings the doorbell after its commit, and polls
   * `PRAGMA data_version` every 20 ms besides (every 1 ms when the folder cannot be watched).
   */
  changeFeed(options: Omit<SqliteChangeFeedOptions, 'file'> = {}): SqliteChangeFeed {
    if (this.closed) throw new Error('the store is closed');
    const feed = new SqliteChangeFeed({ ...options, file: this.file });
    this.feeds.add(feed);
    return feed;
  }

  /**
   * The secret write limit, counted in this process's memory: a SQLite file serves one api
   * process, which holds every count there is.
   */
  writeRateLimiter(options: WriteRateLimitOptions): WriteRateLimiter {
    return writeRateLimiter(
      new RateLimiterMemory({
        points: options.max,
        duration: options.windowSeconds,
        keyPrefix: options.name ?? WRITE_RATE_LIMIT_PREFIX,
      }),
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const feed of this.feeds) await feed.close();
    await this.db.destroy();
    this.bell.close();
  }

  /** Brings the schema up to date; the write lock keeps two processes from racing. */
  async migrate(): Promise<void> {
    await this.db.connection().execute((conn) =>
      this.inWriteTransaction(conn, async () => {
        const migrator = new Migrator({
          db: conn,
          provider: { getMigrations: () => Promise.resolve(migrations) },
        });
        const { error } = await migrator.migrateToLatest();
        if (error) throw error instanceof Error ? error : new Error(String(error));
      }),
    );
  }

  private async inWriteTransaction<T>(conn: Kysely<Database>, fn: () => Promise<T>): Promise<T> {
    await this.beginImmediate(conn);
    try {
      const result = await fn();
      await sql`commit`.execute(conn);
      this.bell.ring();
      return result;
    } catch (error) {
      // Some errors (disk full, I/O) end the transaction by themselves.
      if (this.sqlite.inTransaction) await sql`rollback`.execute(conn);
      throw error;
    }
  }

  /**
   * BEGIN IMMEDIATE, waiting for the write lock without blocking the event loop: SQLite's own
   * busy handler sleeps synchronously, which would freeze this process (and any other store in
   * it, which may be the very holder of the lock) for up to the busy timeout.
   */
  private async beginImmediate(conn: Kysely<Database>): Promise<void> {
    const deadline = Date.now() + BUSY_TIMEOUT_MS;
    for (let attempt = 0; ; attempt++) {
      // `pragma()`, not a kept statement: SQLite applies busy_timeout when it compiles it.
      this.sqlite.pragma('busy_timeout = 0');
      try {
        await sql`begin immediate`.execute(conn);
        return;
      } catch (error) {
        if (!isBusy(error)) throw error;
        // Another process held the write lock all along: a refusal to retry, not a failure.
        if (Date.now() >= deadline) throw new StorageUnavailableError(1, { cause: error });
      } finally {
        this.sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
      await sleep(Math.min(2 ** attempt, 8) * (0.5 + Math.random()));
    }
  }
}

/**
 * The connection as Kysely sees it, with its prepared statements kept: Kysely prepares every
 * query anew, and compiling is most of the cost of the small queries a write makes. Queries are
 * built from a fixed set of shapes, so the cache stays small; past the bound it starts over.
 * (Kysely only streams with `iterate`, which this store never uses, so a statement is never
 * busy when it is handed out again.)
 */
function keepStatements(db: BetterSqlite3.Database, max = 1000): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => db.close(),
    prepare: (text: string) => {
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= max) statements.clear();
        statement = db.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
