import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { ChangeFeed, Store } from '@svc/domain';
import { openSqliteStore } from '@svc/storage-sqlite';
import type { Settings } from './settings.ts';

export const SQLITE_FILE = 'svc.sqlite';

export interface Storage {
  store: Store;
  /** A change feed following the store's log (one per api instance). */
  changeFeed(): ChangeFeed;
  /** Human-readable: which database (no credentials). */
  describe: string;
}

/** SQLite in DATA_DIR by default; DATABASE_URL=postgres://… selects PostgreSQL. */
export async function openStorage(settings: Settings): Promise<Storage> {
  const url = settings.DATABASE_URL;
  if (url?.startsWith('postgres')) {
    throw new Error('DATABASE_URL=postgres://… is not supported yet by this build');
  }
  const file = url ? url.replace(/^(sqlite|file):/, '') : join(settings.dataDir, SQLITE_FILE);
  mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
  const store = await openSqliteStore({ file });
  return { store, changeFeed: () => store.changeFeed(), describe: `sqlite:${file}` };
}
