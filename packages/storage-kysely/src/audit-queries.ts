/**
 * The audit trail of a workspace: who did what, appended by the use cases in the transaction of
 * their writes (so an entry exists exactly when its writes committed), listed newest first.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuditEntry } from '@svc/domain';
import type { Database } from './database.ts';
import { toAuditEntry } from './rows.ts';
import type { StoreDialect } from './store-dialect.ts';
import type { WriteContext } from './write-context.ts';

export async function listAudit(
  db: Kysely<Database>,
  dialect: StoreDialect,
  workspaceId: string,
  limit: number,
): Promise<AuditEntry[]> {
  const rows = await db
    .selectFrom('audit')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('at', 'desc')
    // Entries of the same millisecond: the later insert first.
    .orderBy(dialect.auditInsertOrder, 'desc')
    .limit(limit)
    .execute();
  return rows.map(toAuditEntry);
}

export async function appendAudit(
  { db, clock }: WriteContext,
  entry: Omit<AuditEntry, 'id' | 'at'>,
): Promise<void> {
  await db
    .insertInto('audit')
    .values({
      id: randomUUID(),
      workspace_id: entry.workspaceId,
      at: clock.now(),
      actor: entry.actor,
      action: entry.action,
      target: entry.target,
    })
    .execute();
}
