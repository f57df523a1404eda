export type * from './database.ts';
export { CHANGE_SEQ_COUNTER } from '@svc/storage-kysely';
export { migrations } from './migrations.ts';
export {
  CHANGE_CHANNEL,
  PostgresStore,
  changeChannel,
  openPostgresStore,
  type PostgresStoreOptions,
} from './postgres-store.ts';
export { PostgresChangeFeed, type PostgresChangeFeedOptions } from './postgres-change-feed.ts';
export { RATE_LIMIT_TABLE } from './postgres-write-rate-limiter.ts';
