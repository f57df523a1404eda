/**
 * The schema as Kysely sees it on PostgreSQL: the shared schema of `@svc/storage-kysely`,
 * column for column as on SQLite, so both adapters share one contract and data moves between
 * them as it is. `bigint` columns arrive as numbers: the pool parses int8 with `Number()` (see
 * `postgres-store.ts`). One addition: `audit.pos`, standing in for SQLite's rowid to order
 * entries of the same millisecond.
 */
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type {
  AuditTable as SharedAuditTable,
  Database as SharedDatabase,
} from '@svc/storage-kysely';

// Every table type but the two that differ here, which the declarations below take over.
export type * from '@svc/storage-kysely/database';

export interface AuditTable extends SharedAuditTable {
  /** Insert order (an identity column): PostgreSQL has no rowid. */
  pos: Generated<number>;
}
export type AuditRow = Selectable<AuditTable>;
export type NewAuditRow = Insertable<AuditTable>;
export type AuditUpdate = Updateable<AuditTable>;

export interface Database extends Omit<SharedDatabase, 'audit'> {
  audit: AuditTable;
}
