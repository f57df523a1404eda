export type * from './database.ts';
export { CHANGE_SEQ_COUNTER } from './database.ts';
export { migrations } from './migrations.ts';
export {
  BUSY_TIMEOUT_MS,
  SqliteStore,
  openSqliteStore,
  type SqliteStoreOptions,
} from './sqlite-store.ts';
export { SqliteChangeFeed, type SqliteChangeFeedOptions } from './sqlite-change-feed.ts';
