/**
 * Workspaces, the top of the tenancy: each holds projects and has one billing status. Creating
 * or changing one is a change, so that api instances learn of it (an overdue workspace loses
 * evaluate-ab at once).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { NotFoundError, type BillingStatus, type Workspace } from '@svc/domain';
import type { Database } from './database.ts';
import { toWorkspace } from './rows.ts';
import type { StoreDialect } from './store-dialect.ts';
import { conflictOnDuplicate, type WriteContext } from './write-context.ts';

export async function findWorkspaceBySlug(
  db: Kysely<Database>,
  slug: string,
): Promise<Workspace | undefined> {
  const row = await db
    .selectFrom('workspaces')
    .selectAll()
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row && toWorkspace(row);
}

export async function findWorkspaceById(
  db: Kysely<Database>,
  id: string,
): Promise<Workspace | undefined> {
  const row = await db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toWorkspace(row);
}

export async function listWorkspaces(
  db: Kysely<Database>,
  dialect: StoreDialect,
): Promise<Workspace[]> {
  const rows = await db
    .selectFrom('workspaces')
    .selectAll()
    .orderBy(dialect.byCodePoint('slug'))
    .execute();
  return rows.map(toWorkspace);
}

export async function insertWorkspace(
  tx: WriteContext,
  input: { slug: string; name: string },
): Promise<Workspace> {
  const row = {
    id: randomUUID(),
    slug: input.slug,
    name: input.name,
    billing_status: 'ok' as const,
    created_at: tx.clock.now(),
  };
  await conflictOnDuplicate(tx, `workspace '${input.slug}' exists`, () =>
    tx.db.insertInto('workspaces').values(row).execute(),
  );
  await tx.changeLog.append({ workspaceId: row.id, kind: 'workspace', key: row.slug });
  return toWorkspace(row);
}

export async function updateWorkspace(
  { db, changeLog }: WriteContext,
  id: string,
  patch: { billingStatus?: BillingStatus },
): Promise<Workspace> {
  if (patch.billingStatus !== undefined) {
    await db
      .updateTable('workspaces')
      .set({ billing_status: patch.billingStatus })
      .where('id', '=', id)
      .execute();
  }
  const workspace = await findWorkspaceById(db, id);
  if (!workspace) throw new NotFoundError(`no workspace '${id}'`);
  await changeLog.append({ workspaceId: id, kind: 'workspace', key: workspace.slug });
  return workspace;
}
