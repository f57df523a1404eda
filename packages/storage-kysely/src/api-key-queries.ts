/**
 * API keys, stored by hash. Creating or revoking one is a change, so that api instances learn
 * of it; recording its use is not.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ApiKeyRecord, StoreWriter } from '@svc/domain';
import type { Database } from './database.ts';
import { toApiKey } from './rows.ts';
import type { StoreDialect } from './store-dialect.ts';
import type { WriteContext } from './write-context.ts';

/** Ids per statement: far below SQLite's variable limit and PostgreSQL's 65,535 parameters. */
const TOUCH_CHUNK = 500;

export async function findApiKeyByHash(
  db: Kysely<Database>,
  hash: string,
): Promise<ApiKeyRecord | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('hash', '=', hash)
    .executeTakeFirst();
  return row && toApiKey(row);
}

export async function findApiKeyById(
  db: Kysely<Database>,
  id: string,
): Promise<ApiKeyRecord | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toApiKey(row);
}

export async function listApiKeys(
  db: Kysely<Database>,
  dialect: StoreDialect,
  projectId?: string,
): Promise<ApiKeyRecord[]> {
  let query = db.selectFrom('api_keys').selectAll();
  if (projectId !== undefined) query = query.where('project_id', '=', projectId);
  const rows = await query.orderBy('created_at').orderBy(dialect.byCodePoint('id')).execute();
  return rows.map(toApiKey);
}

export async function insertApiKey(
  { db, clock, changeLog }: WriteContext,
  input: Parameters<StoreWriter['insertApiKey']>[0],
): Promise<ApiKeyRecord> {
  const row = {
    id: randomUUID(),
    workspace_id: input.workspaceId,
    project_id: input.projectId,
    service_id: input.serviceId,
    kind: input.kind,
    name: input.name,
    prefix: input.prefix,
    hash: input.hash,
    created_at: clock.now(),
    last_used_at: null,
    revoked_at: null,
    identity_id: input.identityId ?? null,
    expires_at: input.expiresAt ?? null,
  };
  await db.insertInto('api_keys').values(row).execute();
  await changeLog.append({
    workspaceId: row.workspace_id,
    projectId: row.project_id,
    serviceId: row.service_id,
    kind: 'key',
    key: row.id,
  });
  return toApiKey(row);
}

export async function revokeApiKey(
  { db, clock, changeLog }: WriteContext,
  projectId: string,
  id: string,
): Promise<boolean> {
  const revoked = await db
    .updateTable('api_keys')
    .set({ revoked_at: clock.now() })
    .where('id', '=', id)
    .where('project_id', '=', projectId)
    .where('revoked_at', 'is', null)
    .returning(['workspace_id', 'service_id'])
    .executeTakeFirst();
  if (!revoked) return false;
  await changeLog.append({
    workspaceId: revoked.workspace_id,
    projectId,
    serviceId: revoked.service_id,
    kind: 'key',
    key: id,
    op: 'delete',
  });
  return true;
}

export async function touchApiKeys({ db }: WriteContext, ids: string[], at: number): Promise<void> {
  for (let i = 0; i < ids.length; i += TOUCH_CHUNK) {
    await db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', 'in', ids.slice(i, i + TOUCH_CHUNK))
      .execute();
  }
}
