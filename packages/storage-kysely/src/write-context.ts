/**
 * What every write is given: the transaction's connection, the dialect, the clock and the
 * transaction's change log. The writer builds one per transaction and hands it to the writes of
 * each concept, so they share the connection and the change log's once-per-transaction hook.
 */
import { sql, type Kysely } from 'kysely';
import { ConflictError, type Clock } from '@svc/domain';
import type { ChangeLog } from './change-log.ts';
import type { Database } from './database.ts';
import type { StoreDialect } from './store-dialect.ts';

export interface WriteContext {
  /** A connection already inside the store's transaction. */
  db: Kysely<Database>;
  dialect: StoreDialect;
  /** Source of `created_at`, `updated_at` and change times. */
  clock: Clock;
  changeLog: ChangeLog;
}

/**
 * Runs an insert; a unique-constraint violation becomes the domain's ConflictError. Where a
 * failed statement aborts the transaction, under a savepoint, so that the transaction stays
 * usable for a caller who catches the conflict.
 */
export async function conflictOnDuplicate(
  { db, dialect }: WriteContext,
  message: string,
  insert: () => Promise<unknown>,
): Promise<void> {
  const savepoint = dialect.failedStatementAbortsTransaction;
  if (savepoint) await sql`savepoint before_insert`.execute(db);
  try {
    await insert();
  } catch (error) {
    if (savepoint) await sql`rollback to savepoint before_insert`.execute(db);
    if (dialect.isUniqueViolation(error)) {
      throw new ConflictError(message, { cause: error });
    }
    throw error;
  }
  if (savepoint) await sql`release savepoint before_insert`.execute(db);
}
