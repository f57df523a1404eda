/** Where SQLite differs beneath the shared queries of `@svc/storage-kysely`. */
import { sql } from 'kysely';
import type { StoreDialect } from '@svc/storage-kysely';

export const sqliteStoreDialect: StoreDialect = {
  // SQLite's default collation (BINARY) compares text by code point already.
  byCodePoint: (column) => sql.ref(column),
  auditInsertOrder: sql`rowid`,
  isUniqueViolation(error) {
    const code = (error as { code?: unknown } | null)?.code;
    return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  },
  // A failed statement is undone alone; the transaction carries on.
  failedStatementAbortsTransaction: false,
};
