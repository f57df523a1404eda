/**
 * The Store for several api instances: one PostgreSQL database, a connection pool per store.
 * Write transactions run as if one after another: each starts by locking the change-log counter
 * row, so a read-modify-write never loses an update and seqs commit in seq order, as on SQLite.
 */
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import {
  systemClock,
  type Clock,
  type Store,
  type StoreWriter,
  type WriteRateLimiter,
  type WriteRateLimitOptions,
} from '@svc/domain';
import {
  CHANGE_SEQ_COUNTER,
  KyselyReader,
  KyselyWriter,
  type Database as SharedDatabase,
} from '@svc/storage-kysely';
import type { Database } from './database.ts';
import { migrations } from './migrations.ts';
import { PostgresChangeFeed, type PostgresChangeFeedOptions } from './postgres-change-feed.ts';
import { unavailableOnLoss } from './connection-loss.ts';
import { postgresStoreDialect } from './postgres-store-dialect.ts';
import { postgresWriteRateLimiter } from './postgres-write-rate-limiter.ts';

/** The NOTIFY channel of the change log (per schema, see `changeChannel`). */
export const CHANGE_CHANNEL = 'svc_changes';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database?…`; the database must exist. */
  connectionString: string;
  /**
   * A schema to keep the tables in (created when missing; lower-case letters, digits and `_`);
   * by default the connection's search path decides (normally `public`). Stores and feeds on one
   * schema see each other's changes, and only those.
   */
  schema?: string;
  /** Source of `created_at`, `updated_at` and change times; the system clock by default. */
  clock?: Clock;
  /** Pool size (default 10). */
  maxConnections?: number;
  /**
   * Told of every connection the database ends or loses: pooled ones (idle or in use) and the
   * feeds' listening ones. Each is replaced on demand, so this is for logs (default: ignored).
   */
  onConnectionError?: (error: Error) => void;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,39}$/;

/** int8 (bigint) columns hold milliseconds and counters, far below 2^53: numbers, not strings. */
const INT8_OID = 20;

function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 ${text} is beyond 2^53`);
  return value;
}

/** Connection settings shared by the pool and the feeds' listening connections. */
export function connectionConfig(options: PostgresStoreOptions): pg.ClientConfig {
  return {
    connectionString: options.connectionString,
    application_name: 'svc',
    // An unreachable server fails a query (or a feed's reconnect attempt) instead of hanging it.
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID && format !== 'binary'
          ? parseInt8
          : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
    },
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  };
}

/** The channel of a schema's change log: schemas on one database must not wake each other. */
export function changeChannel(schema: string | undefined): string {
  return schema ? `${CHANGE_CHANNEL}_${schema}` : CHANGE_CHANNEL;
}

/** Opens a pool on the database and brings its schema up to date. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new Error(`schema '${options.schema}': use lower-case letters, digits and _`);
  }
  const onError = options.onConnectionError ?? (() => {});
  const pool = new pg.Pool({ ...connectionConfig(options), max: options.maxConnections ?? 10 });
  // A pooled connection that dies (server restart, terminated backend) emits 'error', which
  // would end the process without a listener: while idle on the pool (which drops it), and
  // while in use between two queries. Each connection reports its own, once; the pool's copy
  // for idle ones is left quiet. A dead connection is dropped when released, and replaced.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', onError));
  const store = new PostgresStore(
    new Kysely<Database>({ dialect: new PostgresDialect({ pool: unavailableOnLoss(pool) }) }),
    pool,
    options,
  );
  try {
    await store.migrate();
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * Reads go straight to the pool; writes only through `transaction()`. Unlike SQLite, reading
 * through the store inside a transaction works (on another connection) but does not see the
 * transaction's own writes: use the `tx` it gives you.
 */
export class PostgresStore extends KyselyReader implements Store {
  private readonly feeds = new Set<PostgresChangeFeed>();
  private readonly clock: Clock;
  private readonly channel: string;
  private closed = false;

  /** Use `openPostgresStore`, which also migrates. */
  constructor(
    db: Kysely<Database>,
    /** The store's connection pool (ends with the store). */
    private readonly pool: pg.Pool,
    private readonly options: PostgresStoreOptions,
  ) {
    // The shared queries see the shared schema: `audit.pos` is the one column they never name
    // (the dialect orders by it), and Kysely's types cannot narrow a schema by themselves.
    super(db as unknown as Kysely<SharedDatabase>, postgresStoreDialect);
    this.clock = options.clock ?? systemClock;
    this.channel = changeChannel(options.schema);
  }

  async transaction<T>(fn: (tx: StoreWriter) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      // Writers queue here, so each sees every earlier commit (read committed takes a fresh
      // snapshot per statement) and the change log grows in commit order.
      await sql`select value from counters where name = ${CHANGE_SEQ_COUNTER} for update`.execute(
        trx,
      );
      const writer = new KyselyWriter(trx, {
        dialect: this.dialect,
        clock: this.clock,
        // Delivered at commit, once per transaction however many changes it holds.
        onFirstChange: async () => {
          await sql`select pg_notify(${this.channel}, '')`.execute(trx);
        },
      });
      return fn(writer);
    });
  }

  /**
   * A feed of this database's change log: LISTEN on a connection of its own to wake up, the
   * store's pool to read the log, and a catch-up read every `catchUpIntervalMs` (default 1000).
   * Closed with the store.
   */
  changeFeed(
    options: Omit<PostgresChangeFeedOptions, 'connection' | 'channel' | 'readChanges'> = {},
  ): PostgresChangeFeed {
    if (this.closed) throw new Error('the store is closed');
    const feed = new PostgresChangeFeed({
      onListenError: this.options.onConnectionError,
      ...options,
      connection: connectionConfig(this.options),
      channel: this.channel,
      readChanges: (afterSeq, limit) => this.changesAfter(afterSeq, limit),
    });
    this.feeds.add(feed);
    return feed;
  }

  /**
   * The secret write limit, counted in this database: shared by every api instance on it, so N
   * instances allow `max` writes per key in total. Its table is created on first use.
   */
  writeRateLimiter(options: WriteRateLimitOptions): WriteRateLimiter {
    return postgresWriteRateLimiter(this.pool, options);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const feed of this.feeds) await feed.close();
    await this.db.destroy();
  }

  /**
   * Brings the schema up to date; Kysely's advisory lock keeps two processes from racing. An
   * up-to-date schema (every start but the first) costs one query instead of the migrator's
   * catalog look-ups.
   */
  async migrate(): Promise<void> {
    if (await this.isMigrated()) return;
    const migrator = new Migrator({
      db: this.db,
      provider: { getMigrations: () => Promise.resolve(migrations) },
      ...(this.options.schema ? { migrationTableSchema: this.options.schema } : {}),
    });
    const { error } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
  }

  private async isMigrated(): Promise<boolean> {
    const latest = Object.keys(migrations).sort().at(-1);
    try {
      const { rows } = await sql<{ name: string }>`
        select name from kysely_migration order by name desc limit 1`.execute(this.db);
      return rows[0]?.name === latest;
    } catch (error) {
      // A new database: no migration table yet.
      if ((error as { code?: unknown } | null)?.code === UNDEFINED_TABLE) return false;
      throw error;
    }
  }
}

/** SQLSTATE of a missing table. */
const UNDEFINED_TABLE = '42P01';
