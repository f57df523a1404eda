/**
 * What the shared reader and writer ask of the database underneath: the few places where
 * SQLite and PostgreSQL differ beneath the same Kysely queries. Each adapter gives one.
 */
import type { Kysely, RawBuilder } from 'kysely';
import type { ProjectState } from '@svc/domain';
import type { Database } from './database.ts';

export interface StoreDialect {
  /**
   * A text column (`'key'`, `'v.key'`) to order by code point whatever the database's
   * collation, so that every adapter lists in the same order: SQLite compares bytes already,
   * PostgreSQL needs `collate "C"` (en_US would put `b` before `C`).
   */
  byCodePoint(column: string): RawBuilder<unknown>;
  /** Orders audit entries of the same millisecond by insert: SQLite's rowid, or a column. */
  auditInsertOrder: RawBuilder<unknown>;
  /** Whether a driver error is a unique-constraint (or primary-key) violation. */
  isUniqueViolation(error: unknown): boolean;
  /**
   * Whether a failed statement aborts its whole transaction (PostgreSQL). Then an insert that
   * may fail on a duplicate runs under a savepoint, so that a caller who catches the conflict
   * can carry on, as on SQLite.
   */
  failedStatementAbortsTransaction: boolean;
  /**
   * Reads a whole project in place of the shared query per table (PostgreSQL: one statement,
   * one round trip and one snapshot). Without it, the reader runs a query per table.
   */
  loadProjectState?: (db: Kysely<Database>, projectId: string) => Promise<ProjectState | undefined>;
}
