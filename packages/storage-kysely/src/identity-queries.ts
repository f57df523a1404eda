/**
 * Identities and the keys minted from them, as queries on a Kysely instance (the store's or a
 * transaction's): the reader and writer delegate here so identities stay in one file. An
 * identity itself is not a change (api instances never serve it); the keys it mints are.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  NotFoundError,
  type IdentityBinding,
  type IdentityRecord,
  type NewIdentity,
} from '@svc/domain';
import type { Database, IdentityRow } from './database.ts';
import type { StoreDialect } from './store-dialect.ts';
import { conflictOnDuplicate, type WriteContext } from './write-context.ts';

export function toIdentity(row: IdentityRow): IdentityRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    projectId: row.project_id,
    serviceId: row.service_id,
    name: row.name,
    kind: row.kind,
    ttlSeconds: row.ttl_s,
    binding: { method: row.method, settings: JSON.parse(row.settings_json) } as IdentityBinding,
    sealedSecret: row.sealed_secret,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastUsedAt: row.last_used_at,
  };
}

/** The columns an insert or a full update writes. */
function columns(input: NewIdentity) {
  return {
    workspace_id: input.workspaceId,
    project_id: input.projectId,
    service_id: input.serviceId,
    name: input.name,
    kind: input.kind,
    ttl_s: input.ttlSeconds,
    method: input.binding.method,
    settings_json: JSON.stringify(input.binding.settings),
    sealed_secret: input.sealedSecret,
  };
}

export async function findIdentity(
  db: Kysely<Database>,
  id: string,
): Promise<IdentityRecord | undefined> {
  const row = await db.selectFrom('identities').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toIdentity(row);
}

export async function listIdentities(
  db: Kysely<Database>,
  dialect: StoreDialect,
  projectId: string,
): Promise<IdentityRecord[]> {
  const rows = await db
    .selectFrom('identities')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy(dialect.byCodePoint('name'))
    .execute();
  return rows.map(toIdentity);
}

export async function countLiveIdentityKeys(
  db: Kysely<Database>,
  projectId: string,
  now: number,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('api_keys')
    .select((eb) => ['identity_id', eb.fn.countAll<number | string>().as('live')])
    .where('project_id', '=', projectId)
    .where('identity_id', 'is not', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .groupBy('identity_id')
    .execute();
  // pg returns count(*) as text.
  return new Map(rows.map((row) => [row.identity_id!, Number(row.live)]));
}

/** Throws ConflictError when the name is taken. */
export async function insertIdentity(
  tx: WriteContext,
  input: NewIdentity,
): Promise<IdentityRecord> {
  const now = tx.clock.now();
  const row: IdentityRow = {
    id: randomUUID(),
    ...columns(input),
    created_at: now,
    updated_at: now,
    last_used_at: null,
  };
  await conflictOnDuplicate(tx, `identity '${input.name}' exists`, () =>
    tx.db.insertInto('identities').values(row).execute(),
  );
  return toIdentity(row);
}

/** Throws ConflictError when the new name is taken, NotFoundError when there is no such id. */
export async function updateIdentity(
  tx: WriteContext,
  id: string,
  input: NewIdentity,
): Promise<IdentityRecord> {
  await conflictOnDuplicate(tx, `identity '${input.name}' exists`, () =>
    tx.db
      .updateTable('identities')
      .set({ ...columns(input), updated_at: tx.clock.now() })
      .where('id', '=', id)
      .execute(),
  );
  const identity = await findIdentity(tx.db, id);
  if (!identity) throw new NotFoundError(`no identity '${id}'`);
  return identity;
}

export async function deleteIdentity(db: Kysely<Database>, id: string): Promise<boolean> {
  const { numDeletedRows } = await db
    .deleteFrom('identities')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return numDeletedRows > 0n;
}

export async function touchIdentity(
  db: Kysely<Database>,
  id: string,
  at: number,
): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('identities')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return numUpdatedRows > 0n;
}

/**
 * Deletes every key of the identity; the live ones (unrevoked, unexpired at `now`) are logged
 * as deleted, so that api instances drop them. Returns how many were live.
 */
export async function revokeIdentityKeys(
  { db, changeLog }: WriteContext,
  identityId: string,
  now: number,
): Promise<number> {
  const live = await db
    .selectFrom('api_keys')
    .select(['id', 'workspace_id', 'project_id', 'service_id'])
    .where('identity_id', '=', identityId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();
  await db.deleteFrom('api_keys').where('identity_id', '=', identityId).execute();
  for (const key of live) {
    await changeLog.append({
      workspaceId: key.workspace_id,
      projectId: key.project_id,
      serviceId: key.service_id,
      kind: 'key',
      key: key.id,
      op: 'delete',
    });
  }
  return live.length;
}

export async function deleteExpiredIdentityKeys(
  db: Kysely<Database>,
  identityId: string,
  before: number,
): Promise<number> {
  const { numDeletedRows } = await db
    .deleteFrom('api_keys')
    .where('identity_id', '=', identityId)
    .where('expires_at', '<=', before)
    .executeTakeFirstOrThrow();
  return Number(numDeletedRows);
}
