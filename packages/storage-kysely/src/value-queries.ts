/**
 * Configs and flags: one row per key and scope, replaced whole by a put. Every put and every
 * deletion that found its row is a value change of the project (secrets, which keep versions,
 * are in secret-queries.ts).
 */
import type { Kysely } from 'kysely';
import type { Change, ConfigEntry, FlagEntry, Scope } from '@svc/domain';
import type { Database } from './database.ts';
import { scopeColumn, toConfig, toFlag, toFlag01, toHundredths } from './rows.ts';
import type { StoreDialect } from './store-dialect.ts';
import type { WriteContext } from './write-context.ts';

export async function listConfigs(
  db: Kysely<Database>,
  dialect: StoreDialect,
  scope: Scope,
): Promise<ConfigEntry[]> {
  const rows = await db
    .selectFrom('configs')
    .selectAll()
    .where('project_id', '=', scope.projectId)
    .where('scope', '=', scopeColumn(scope))
    .orderBy(dialect.byCodePoint('key'))
    .execute();
  return rows.map(toConfig);
}

export async function listFlags(
  db: Kysely<Database>,
  dialect: StoreDialect,
  scope: Scope,
): Promise<FlagEntry[]> {
  const rows = await db
    .selectFrom('flags')
    .selectAll()
    .where('project_id', '=', scope.projectId)
    .where('scope', '=', scopeColumn(scope))
    .orderBy(dialect.byCodePoint('key'))
    .execute();
  return rows.map(toFlag);
}

export async function findConfig(
  db: Kysely<Database>,
  scope: Scope,
  key: string,
): Promise<ConfigEntry | undefined> {
  const row = await db
    .selectFrom('configs')
    .selectAll()
    .where('project_id', '=', scope.projectId)
    .where('scope', '=', scopeColumn(scope))
    .where('key', '=', key)
    .executeTakeFirst();
  return row && toConfig(row);
}

export async function findFlag(
  db: Kysely<Database>,
  scope: Scope,
  key: string,
): Promise<FlagEntry | undefined> {
  const row = await db
    .selectFrom('flags')
    .selectAll()
    .where('project_id', '=', scope.projectId)
    .where('scope', '=', scopeColumn(scope))
    .where('key', '=', key)
    .executeTakeFirst();
  return row && toFlag(row);
}

export async function putConfig(
  { db, clock, changeLog }: WriteContext,
  scope: Scope,
  entry: Omit<ConfigEntry, 'updatedAt'>,
): Promise<Change> {
  const row = {
    value_json: entry.valueJson,
    is_public: toFlag01(entry.isPublic),
    updated_at: clock.now(),
  };
  await db
    .insertInto('configs')
    .values({ project_id: scope.projectId, scope: scopeColumn(scope), key: entry.key, ...row })
    .onConflict((oc) => oc.columns(['project_id', 'scope', 'key']).doUpdateSet(row))
    .execute();
  return changeLog.appendValueChange(scope, 'config', entry.key, 'upsert');
}

export async function putFlag(
  { db, clock, changeLog }: WriteContext,
  scope: Scope,
  entry: Omit<FlagEntry, 'updatedAt'>,
): Promise<Change> {
  const row = {
    is_active: toFlag01(entry.isActive),
    rules_json: JSON.stringify(entry.rules),
    rollout_hundredths: toHundredths(entry.rolloutPercentage),
    salt: entry.salt,
    updated_at: clock.now(),
  };
  await db
    .insertInto('flags')
    .values({ project_id: scope.projectId, scope: scopeColumn(scope), key: entry.key, ...row })
    .onConflict((oc) => oc.columns(['project_id', 'scope', 'key']).doUpdateSet(row))
    .execute();
  return changeLog.appendValueChange(scope, 'flag', entry.key, 'upsert');
}

/** Deletes a config or a flag; only a deletion that found the row is a change. */
export async function deleteValue(
  { db, changeLog }: WriteContext,
  kind: 'config' | 'flag',
  scope: Scope,
  key: string,
): Promise<Change | undefined> {
  const { numDeletedRows } = await db
    .deleteFrom(kind === 'config' ? 'configs' : 'flags')
    .where('project_id', '=', scope.projectId)
    .where('scope', '=', scopeColumn(scope))
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
  if (numDeletedRows === 0n) return undefined;
  return changeLog.appendValueChange(scope, kind, key, 'delete');
}
