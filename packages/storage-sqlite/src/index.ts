export type * from '@svc/storage-kysely/database';
export { CHANGE_SEQ_COUNTER } from '@svc/storage-kysely';
export { migrations } from './migrations.ts';
export {
  BUSY_TIMEOUT_MS,
  SqliteStore,
  openSqliteStore,
  type SqliteStoreOptions,
} from './sqlite-store.ts';
export { SqliteChangeFeed, type SqliteChangeFeedOptions } from './sqlite-change-feed.ts';
