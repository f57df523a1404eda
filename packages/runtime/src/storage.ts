import { join } from 'node:path';
import type { ChangeFeed, Store, WriteRateLimiter, WriteRateLimitOptions } from '@svc/domain';
import { openPostgresStore } from '@svc/storage-postgres';
import { openSqliteStore } from '@svc/storage-sqlite';
import { createPrivateFile, privateDataDir } from './data-dir.ts';
import type { Settings } from './settings.ts';

export const SQLITE_FILE = 'svc.sqlite';

export interface Storage {
  store: Store;
  /** A change feed following the store's log (one per api instance). */
  changeFeed(options?: ChangeFeedOptions): ChangeFeed;
  /**
   * The secret write limit: counted in the database on PostgreSQL (shared by every api
   * instance), in memory on SQLite (one api process).
   */
  writeRateLimiter(options: WriteRateLimitOptions): WriteRateLimiter;
  /** Human-readable: which database (no credentials). */
  describe: string;
}

export interface ChangeFeedOptions {
  /** Each failed batch (read or apply), offered again after a growing wait. */
  onError?: (error: Error, failures: number) => void;
}

/** SQLite in DATA_DIR by default; DATABASE_URL=postgres://… selects PostgreSQL. */
export async function openStorage(
  settings: Settings,
  options: {
    onConnectionError?: (error: Error) => void;
    /** What could not be made private in DATA_DIR (see data-dir.ts). */
    onInsecureFile?: (message: string) => void;
  } = {},
): Promise<Storage> {
  const url = settings.DATABASE_URL;
  if (url && /^postgres(ql)?:\/\//.test(url)) {
    const store = await openPostgresStore({
      connectionString: url,
      ...(options.onConnectionError ? { onConnectionError: options.onConnectionError } : {}),
    });
    return {
      store,
      changeFeed: (feedOptions) => store.changeFeed(feedOptions),
      writeRateLimiter: (limit) => store.writeRateLimiter(limit),
      describe: describePostgres(url),
    };
  }
  const file = url ? url.replace(/^(sqlite|file):/, '') : join(settings.dataDir, SQLITE_FILE);
  privateDataDir(settings.dataDir, options.onInsecureFile ?? (() => {}));
  createPrivateFile(file);
  const store = await openSqliteStore({ file });
  return {
    store,
    changeFeed: (feedOptions) => store.changeFeed(feedOptions),
    writeRateLimiter: (limit) => store.writeRateLimiter(limit),
    describe: `sqlite:${file}`,
  };
}

/** `postgres://host:port/database`, without user, password or parameters. */
export function describePostgres(url: string): string {
  try {
    const parsed = new URL(url);
    return `postgres://${parsed.host}${parsed.pathname}`;
  } catch {
    return 'postgres';
  }
}
