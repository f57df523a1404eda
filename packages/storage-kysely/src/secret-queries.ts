/**
 * Secrets and their versions. A secret is its remaining versions, the highest one being its
 * current value; every version written or deleted is a value change of the project.
 */
import type { Kysely } from 'kysely';
import type { Change, NewSecretVersion, Scope, SealedVersionRef, SecretVersion } from '@svc/domain';
import type { Database } from './database.ts';
import { scopeColumn, toSecretVersion } from './rows.ts';
import type { StoreDialect } from './store-dialect.ts';
import type { WriteContext } from './write-context.ts';

/** The highest remaining version of each secret of the project. */
export function currentSecretVersions(db: Kysely<Database>, projectId: string) {
  return db
    .selectFrom('secret_versions as v')
    .selectAll('v')
    .where('v.project_id', '=', projectId)
    .where('v.deleted_at', 'is', null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('secret_versions as w')
            .select('w.version')
            .whereRef('w.project_id', '=', 'v.project_id')
            .whereRef('w.scope', '=', 'v.scope')
            .whereRef('w.key', '=', 'v.key')
            .whereRef('w.version', '>', 'v.version')
            .where('w.deleted_at', 'is', null),
        ),
      ),
    );
}

export async function listSecrets(
  db: Kysely<Database>,
  dialect: StoreDialect,
  scope: Scope,
): Promise<SecretVersion[]> {
  const rows = await currentSecretVersions(db, scope.projectId)
    .where('v.scope', '=', scopeColumn(scope))
    .orderBy(dialect.byCodePoint('v.key'))
    .execute();
  return rows.map(toSecretVersion);
}

/** The remaining versions of one secret. */
function remainingVersions(db: Kysely<Database>, scope: Scope, key: string) {
  return db
    .selectFrom('secret_versions')
    .selectAll()
    .where('project_id', '=', scope.projectId)
    .where('scope', '=', scopeColumn(scope))
    .where('key', '=', key)
    .where('deleted_at', 'is', null);
}

export async function findSecret(
  db: Kysely<Database>,
  scope: Scope,
  key: string,
): Promise<SecretVersion | undefined> {
  const row = await remainingVersions(db, scope, key)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && toSecretVersion(row);
}

export async function listSecretVersions(
  db: Kysely<Database>,
  scope: Scope,
  key: string,
): Promise<SecretVersion[]> {
  const rows = await remainingVersions(db, scope, key).orderBy('version').execute();
  return rows.map(toSecretVersion);
}

export async function listSealedVersions(
  db: Kysely<Database>,
  dialect: StoreDialect,
): Promise<SealedVersionRef[]> {
  const rows = await db
    .selectFrom('secret_versions')
    .select(['project_id', 'scope', 'key', 'version', 'type', 'file_name', 'sealed'])
    .where('deleted_at', 'is', null)
    .orderBy(dialect.byCodePoint('project_id'))
    .orderBy(dialect.byCodePoint('scope'))
    .orderBy(dialect.byCodePoint('key'))
    .orderBy('version')
    .execute();
  return rows.map((r) => ({
    scope: { projectId: r.project_id, serviceId: r.scope === '' ? null : r.scope },
    key: r.key,
    version: Number(r.version),
    type: r.type,
    fileName: r.file_name,
    sealed: r.sealed ?? '',
  }));
}

export async function maxSecretVersion(
  db: Kysely<Database>,
  scope: Scope,
  key: string,
): Promise<number> {
  const row = await db
    .selectFrom('secret_versions')
    .select((eb) => eb.fn.max('version').as('version'))
    .where('project_id', '=', scope.projectId)
    .where('scope', '=', scopeColumn(scope))
    .where('key', '=', key)
    .executeTakeFirst();
  return row?.version ?? 0;
}

export async function insertSecretVersion(
  { db, clock, changeLog }: WriteContext,
  scope: Scope,
  key: string,
  version: NewSecretVersion,
): Promise<Change> {
  await db
    .insertInto('secret_versions')
    .values({
      project_id: scope.projectId,
      scope: scopeColumn(scope),
      key,
      version: version.version,
      type: version.type,
      file_name: version.fileName,
      sealed: version.sealed,
      created_at: clock.now(),
      deleted_at: null,
    })
    .execute();
  return changeLog.appendValueChange(scope, 'secret', key, 'upsert');
}

export async function deleteSecret(
  tx: WriteContext,
  scope: Scope,
  key: string,
): Promise<Change | undefined> {
  if (!(await eraseVersions(tx, scope, key))) return undefined;
  return tx.changeLog.appendValueChange(scope, 'secret', key, 'delete');
}

export async function deleteSecretVersion(
  tx: WriteContext,
  scope: Scope,
  key: string,
  version: number,
): Promise<Change | undefined> {
  if (!(await eraseVersions(tx, scope, key, version))) return undefined;
  const current = await findSecret(tx.db, scope, key);
  // With versions left the current value may have changed; without, the secret is gone.
  return tx.changeLog.appendValueChange(scope, 'secret', key, current ? 'upsert' : 'delete');
}

/**
 * Deletes the remaining versions of one secret, or one of them: the sealed value is erased but
 * the row stays, so that `maxSecretVersion` never hands out its number again. False when none
 * remained.
 */
async function eraseVersions(
  { db, clock }: WriteContext,
  scope: Scope,
  key: string,
  version?: number,
): Promise<boolean> {
  let erase = db
    .updateTable('secret_versions')
    .set({ deleted_at: clock.now(), sealed: null })
    .where('project_id', '=', scope.projectId)
    .where('scope', '=', scopeColumn(scope))
    .where('key', '=', key);
  if (version !== undefined) erase = erase.where('version', '=', version);
  const { numUpdatedRows } = await erase.where('deleted_at', 'is', null).executeTakeFirstOrThrow();
  return numUpdatedRows > 0n;
}

/** Root-key rotation: not a change, so no revision bump and no change-log row. */
export async function replaceSealed({ db }: WriteContext, ref: SealedVersionRef): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('secret_versions')
    .set({ sealed: ref.sealed })
    .where('project_id', '=', ref.scope.projectId)
    .where('scope', '=', scopeColumn(ref.scope))
    .where('key', '=', ref.key)
    .where('version', '=', ref.version)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return numUpdatedRows > 0n;
}
