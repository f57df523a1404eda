export type * from './database.ts';
export { CHANGE_SEQ_COUNTER } from './database.ts';
export { schemaMigrations, type SchemaOptions } from './migrations.ts';
export { ChangeLogFeed, type ChangeLogFeedOptions, type WakeUps } from './change-log-feed.ts';
export { KyselyReader } from './kysely-reader.ts';
export { KyselyWriter, type KyselyWriterOptions } from './kysely-writer.ts';
export {
  groupByScope,
  toChange,
  toConfig,
  toFlag,
  toProject,
  toSecretVersion,
  toService,
} from './rows.ts';
export type { StoreDialect } from './store-dialect.ts';
export { WRITE_RATE_LIMIT_PREFIX, writeRateLimiter } from './write-rate-limit.ts';
