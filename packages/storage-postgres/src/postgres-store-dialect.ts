/** Where PostgreSQL differs beneath the shared queries of `@svc/storage-kysely`. */
import { sql } from 'kysely';
import type { StoreDialect } from '@svc/storage-kysely';
import { loadProjectStateInOneStatement } from './postgres-project-state.ts';

/** SQLSTATE of a unique-constraint violation. */
const UNIQUE_VIOLATION = '23505';

export const postgresStoreDialect: StoreDialect = {
  // The database's collation may not be by code point (en_US puts `b` before `C`).
  byCodePoint: (column) => sql`${sql.ref(column)} collate "C"`,
  // `audit.pos`, an identity column: PostgreSQL has no rowid.
  auditInsertOrder: sql.ref('pos'),
  isUniqueViolation: (error) => (error as { code?: unknown } | null)?.code === UNIQUE_VIOLATION,
  failedStatementAbortsTransaction: true,
  loadProjectState: loadProjectStateInOneStatement,
};
