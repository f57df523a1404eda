/**
 * Writes, over one transaction's connection. Every write that api instances must see appends
 * to the change log; value writes also bump the project's revision. How the transaction begins
 * and orders writers is the store's business: it hands the writer a connection already inside.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import {
  ConflictError,
  NotFoundError,
  type ApiKeyRecord,
  type AuditEntry,
  type BillingStatus,
  type Change,
  type ChangeKind,
  type ChangeOp,
  type Clock,
  type ConfigEntry,
  type FlagEntry,
  type IdentityRecord,
  type KeyKind,
  type NewIdentity,
  type NewSecretVersion,
  type Project,
  type Scope,
  type SealedVersionRef,
  type Service,
  type StoreWriter,
  type ValueKind,
  type Workspace,
} from '@svc/domain';
import { CHANGE_SEQ_COUNTER, type Database } from './database.ts';
import {
  scopeColumn,
  toApiKey,
  toFlag01,
  toHundredths,
  toProject,
  toService,
  toWorkspace,
} from './rows.ts';
import { KyselyReader } from './kysely-reader.ts';
import {
  deleteExpiredIdentityKeys,
  deleteIdentity,
  deleteIdentityKeys,
  insertIdentity,
  touchIdentity,
  updateIdentity,
} from './identity-queries.ts';
import type { StoreDialect } from './store-dialect.ts';

/** Ids per statement: far below SQLite's variable limit and PostgreSQL's 65,535 parameters. */
const TOUCH_CHUNK = 500;

export interface KyselyWriterOptions {
  dialect: StoreDialect;
  /** Source of `created_at`, `updated_at` and change times. */
  clock: Clock;
  /**
   * Runs once per transaction, as its first change is logged (PostgreSQL queues its NOTIFY
   * here, which the server delivers at commit and drops on rollback).
   */
  onFirstChange?: () => Promise<void>;
}

/** The StoreWriter of the Kysely adapters, on a connection inside the store's transaction. */
export class KyselyWriter extends KyselyReader implements StoreWriter {
  private readonly clock: Clock;
  private readonly onFirstChange: (() => Promise<void>) | undefined;
  private changed = false;

  constructor(db: Kysely<Database>, options: KyselyWriterOptions) {
    super(db, options.dialect);
    this.clock = options.clock;
    this.onFirstChange = options.onFirstChange;
  }

  async insertWorkspace(input: { slug: string; name: string }): Promise<Workspace> {
    const row = {
      id: randomUUID(),
      slug: input.slug,
      name: input.name,
      billing_status: 'ok' as const,
      created_at: this.clock.now(),
    };
    await this.conflictOnDuplicate(`workspace '${input.slug}' exists`, () =>
      this.db.insertInto('workspaces').values(row).execute(),
    );
    await this.appendChange({ workspaceId: row.id, kind: 'workspace', key: row.slug });
    return toWorkspace(row);
  }

  async updateWorkspace(id: string, patch: { billingStatus?: BillingStatus }): Promise<Workspace> {
    if (patch.billingStatus !== undefined) {
      await this.db
        .updateTable('workspaces')
        .set({ billing_status: patch.billingStatus })
        .where('id', '=', id)
        .execute();
    }
    const workspace = await this.findWorkspaceById(id);
    if (!workspace) throw new NotFoundError(`no workspace '${id}'`);
    await this.appendChange({ workspaceId: id, kind: 'workspace', key: workspace.slug });
    return workspace;
  }

  async insertProject(input: {
    workspaceId: string;
    slug: string;
    name: string;
  }): Promise<Project> {
    const row = {
      id: randomUUID(),
      workspace_id: input.workspaceId,
      slug: input.slug,
      name: input.name,
      ab_testing: 0 as const,
      revision: 0,
      created_at: this.clock.now(),
    };
    await this.conflictOnDuplicate(`project '${input.slug}' exists`, () =>
      this.db.insertInto('projects').values(row).execute(),
    );
    await this.appendChange({
      workspaceId: row.workspace_id,
      projectId: row.id,
      kind: 'project',
      key: row.slug,
    });
    return toProject(row);
  }

  async updateProject(id: string, patch: { abTesting?: boolean }): Promise<Project> {
    if (patch.abTesting !== undefined) {
      await this.db
        .updateTable('projects')
        .set({ ab_testing: toFlag01(patch.abTesting) })
        .where('id', '=', id)
        .execute();
    }
    const project = await this.findProjectById(id);
    if (!project) throw new NotFoundError(`no project '${id}'`);
    await this.appendChange({
      workspaceId: project.workspaceId,
      projectId: id,
      kind: 'project',
      key: project.slug,
    });
    return project;
  }

  async insertService(input: { projectId: string; slug: string; name: string }): Promise<Service> {
    const project = await this.findProjectById(input.projectId);
    if (!project) throw new NotFoundError(`no project '${input.projectId}'`);
    const row = {
      id: randomUUID(),
      project_id: input.projectId,
      slug: input.slug,
      name: input.name,
      created_at: this.clock.now(),
    };
    await this.conflictOnDuplicate(`service '${input.slug}' exists`, () =>
      this.db.insertInto('services').values(row).execute(),
    );
    await this.appendChange({
      workspaceId: project.workspaceId,
      projectId: project.id,
      serviceId: row.id,
      kind: 'service',
      key: row.slug,
    });
    return toService(row);
  }

  async insertApiKey(input: {
    workspaceId: string;
    projectId: string;
    serviceId: string | null;
    kind: KeyKind;
    name: string;
    prefix: string;
    hash: string;
    identityId?: string;
    expiresAt?: number;
  }): Promise<ApiKeyRecord> {
    const row = {
      id: randomUUID(),
      workspace_id: input.workspaceId,
      project_id: input.projectId,
      service_id: input.serviceId,
      kind: input.kind,
      name: input.name,
      prefix: input.prefix,
      hash: input.hash,
      created_at: this.clock.now(),
      last_used_at: null,
      revoked_at: null,
      identity_id: input.identityId ?? null,
      expires_at: input.expiresAt ?? null,
    };
    await this.db.insertInto('api_keys').values(row).execute();
    await this.appendChange({
      workspaceId: row.workspace_id,
      projectId: row.project_id,
      serviceId: row.service_id,
      kind: 'key',
      key: row.id,
    });
    return toApiKey(row);
  }

  async revokeApiKey(projectId: string, id: string): Promise<boolean> {
    const revoked = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: this.clock.now() })
      .where('id', '=', id)
      .where('project_id', '=', projectId)
      .where('revoked_at', 'is', null)
      .returning(['workspace_id', 'service_id'])
      .executeTakeFirst();
    if (!revoked) return false;
    await this.appendChange({
      workspaceId: revoked.workspace_id,
      projectId,
      serviceId: revoked.service_id,
      kind: 'key',
      key: id,
      op: 'delete',
    });
    return true;
  }

  async touchApiKeys(ids: string[], at: number): Promise<void> {
    for (let i = 0; i < ids.length; i += TOUCH_CHUNK) {
      await this.db
        .updateTable('api_keys')
        .set({ last_used_at: at })
        .where('id', 'in', ids.slice(i, i + TOUCH_CHUNK))
        .execute();
    }
  }

  async insertIdentity(input: NewIdentity): Promise<IdentityRecord> {
    let identity: IdentityRecord | undefined;
    await this.conflictOnDuplicate(`identity '${input.name}' exists`, async () => {
      identity = await insertIdentity(this.db, input, this.clock.now());
    });
    return identity!;
  }

  async updateIdentity(id: string, input: NewIdentity): Promise<IdentityRecord> {
    let identity: IdentityRecord | undefined;
    await this.conflictOnDuplicate(`identity '${input.name}' exists`, async () => {
      identity = await updateIdentity(this.db, id, input, this.clock.now());
    });
    if (!identity) throw new NotFoundError(`no identity '${id}'`);
    return identity;
  }

  deleteIdentity(id: string): Promise<boolean> {
    return deleteIdentity(this.db, id);
  }

  touchIdentity(id: string, at: number): Promise<boolean> {
    return touchIdentity(this.db, id, at);
  }

  async revokeIdentityKeys(identityId: string, now: number): Promise<number> {
    const live = await deleteIdentityKeys(this.db, identityId, now);
    for (const key of live) {
      await this.appendChange({
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

  deleteExpiredIdentityKeys(identityId: string, before: number): Promise<number> {
    return deleteExpiredIdentityKeys(this.db, identityId, before);
  }

  async putConfig(scope: Scope, entry: Omit<ConfigEntry, 'updatedAt'>): Promise<Change> {
    const row = {
      value_json: entry.valueJson,
      is_public: toFlag01(entry.isPublic),
      updated_at: this.clock.now(),
    };
    await this.db
      .insertInto('configs')
      .values({ project_id: scope.projectId, scope: scopeColumn(scope), key: entry.key, ...row })
      .onConflict((oc) => oc.columns(['project_id', 'scope', 'key']).doUpdateSet(row))
      .execute();
    return this.valueChange(scope, 'config', entry.key, 'upsert');
  }

  async deleteConfig(scope: Scope, key: string): Promise<Change | undefined> {
    return this.deleteValue('configs', 'config', scope, key);
  }

  async putFlag(scope: Scope, entry: Omit<FlagEntry, 'updatedAt'>): Promise<Change> {
    const row = {
      is_active: toFlag01(entry.isActive),
      rules_json: JSON.stringify(entry.rules),
      rollout_hundredths: toHundredths(entry.rolloutPercentage),
      salt: entry.salt,
      updated_at: this.clock.now(),
    };
    await this.db
      .insertInto('flags')
      .values({ project_id: scope.projectId, scope: scopeColumn(scope), key: entry.key, ...row })
      .onConflict((oc) => oc.columns(['project_id', 'scope', 'key']).doUpdateSet(row))
      .execute();
    return this.valueChange(scope, 'flag', entry.key, 'upsert');
  }

  async deleteFlag(scope: Scope, key: string): Promise<Change | undefined> {
    return this.deleteValue('flags', 'flag', scope, key);
  }

  async maxSecretVersion(scope: Scope, key: string): Promise<number> {
    const row = await this.db
      .selectFrom('secret_versions')
      .select((eb) => eb.fn.max('version').as('version'))
      .where('project_id', '=', scope.projectId)
      .where('scope', '=', scopeColumn(scope))
      .where('key', '=', key)
      .executeTakeFirst();
    return row?.version ?? 0;
  }

  async insertSecretVersion(scope: Scope, key: string, version: NewSecretVersion): Promise<Change> {
    await this.db
      .insertInto('secret_versions')
      .values({
        project_id: scope.projectId,
        scope: scopeColumn(scope),
        key,
        version: version.version,
        type: version.type,
        file_name: version.fileName,
        sealed: version.sealed,
        created_at: this.clock.now(),
        deleted_at: null,
      })
      .execute();
    return this.valueChange(scope, 'secret', key, 'upsert');
  }

  async deleteSecret(scope: Scope, key: string): Promise<Change | undefined> {
    const { numUpdatedRows } = await this.db
      .updateTable('secret_versions')
      .set({ deleted_at: this.clock.now(), sealed: null })
      .where('project_id', '=', scope.projectId)
      .where('scope', '=', scopeColumn(scope))
      .where('key', '=', key)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (numUpdatedRows === 0n) return undefined;
    return this.valueChange(scope, 'secret', key, 'delete');
  }

  async deleteSecretVersion(
    scope: Scope,
    key: string,
    version: number,
  ): Promise<Change | undefined> {
    const { numUpdatedRows } = await this.db
      .updateTable('secret_versions')
      .set({ deleted_at: this.clock.now(), sealed: null })
      .where('project_id', '=', scope.projectId)
      .where('scope', '=', scopeColumn(scope))
      .where('key', '=', key)
      .where('version', '=', version)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (numUpdatedRows === 0n) return undefined;
    const remaining = await this.db
      .selectFrom('secret_versions')
      .select('version')
      .where('project_id', '=', scope.projectId)
      .where('scope', '=', scopeColumn(scope))
      .where('key', '=', key)
      .where('deleted_at', 'is', null)
      .limit(1)
      .executeTakeFirst();
    // With versions left the current value may have changed; without, the secret is gone.
    return this.valueChange(scope, 'secret', key, remaining ? 'upsert' : 'delete');
  }

  async replaceSealed(ref: SealedVersionRef): Promise<boolean> {
    const { numUpdatedRows } = await this.db
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

  async appendAudit(entry: Omit<AuditEntry, 'id' | 'at'>): Promise<void> {
    await this.db
      .insertInto('audit')
      .values({
        id: randomUUID(),
        workspace_id: entry.workspaceId,
        at: this.clock.now(),
        actor: entry.actor,
        action: entry.action,
        target: entry.target,
      })
      .execute();
  }

  /**
   * Runs an insert; a unique-constraint violation becomes the domain's ConflictError. Where a
   * failed statement aborts the transaction, under a savepoint, so that the transaction stays
   * usable for a caller who catches the conflict.
   */
  private async conflictOnDuplicate(
    message: string,
    insert: () => Promise<unknown>,
  ): Promise<void> {
    const savepoint = this.dialect.failedStatementAbortsTransaction;
    if (savepoint) await sql`savepoint before_insert`.execute(this.db);
    try {
      await insert();
    } catch (error) {
      if (savepoint) await sql`rollback to savepoint before_insert`.execute(this.db);
      if (this.dialect.isUniqueViolation(error)) {
        throw new ConflictError(message, { cause: error });
      }
      throw error;
    }
    if (savepoint) await sql`release savepoint before_insert`.execute(this.db);
  }

  /** Deletes a config or a flag; only a deletion that found the row is a change. */
  private async deleteValue(
    table: 'configs' | 'flags',
    kind: 'config' | 'flag',
    scope: Scope,
    key: string,
  ): Promise<Change | undefined> {
    const { numDeletedRows } = await this.db
      .deleteFrom(table)
      .where('project_id', '=', scope.projectId)
      .where('scope', '=', scopeColumn(scope))
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    if (numDeletedRows === 0n) return undefined;
    return this.valueChange(scope, kind, key, 'delete');
  }

  /** Bumps the project's revision and logs the value change with it. */
  private async valueChange(
    scope: Scope,
    kind: ValueKind,
    key: string,
    op: ChangeOp,
  ): Promise<Change> {
    const project = await this.db
      .updateTable('projects')
      .set((eb) => ({ revision: eb('revision', '+', 1) }))
      .where('id', '=', scope.projectId)
      .returning(['workspace_id', 'revision'])
      .executeTakeFirst();
    if (!project) throw new NotFoundError(`no project '${scope.projectId}'`);
    return this.appendChange({
      workspaceId: project.workspace_id,
      projectId: scope.projectId,
      serviceId: scope.serviceId,
      revision: project.revision,
      kind,
      key,
      op,
    });
  }

  /**
   * Appends one change-log row. The seq comes from a counter row updated in this transaction:
   * the row lock orders writers, so seqs commit in order and without gaps on every database.
   */
  private async appendChange(input: {
    workspaceId: string;
    projectId?: string;
    serviceId?: string | null;
    revision?: number;
    kind: ChangeKind;
    key: string;
    op?: ChangeOp;
  }): Promise<Change> {
    const { value: seq } = await this.db
      .updateTable('counters')
      .set((eb) => ({ value: eb('value', '+', 1) }))
      .where('name', '=', CHANGE_SEQ_COUNTER)
      .returning('value')
      .executeTakeFirstOrThrow();
    if (!this.changed) {
      await this.onFirstChange?.();
      this.changed = true;
    }
    const change: Change = {
      seq,
      workspaceId: input.workspaceId,
      projectId: input.projectId ?? null,
      serviceId: input.serviceId ?? null,
      revision: input.revision ?? null,
      kind: input.kind,
      key: input.key,
      op: input.op ?? 'upsert',
      at: this.clock.now(),
    };
    await this.db
      .insertInto('changes')
      .values({
        seq: change.seq,
        workspace_id: change.workspaceId,
        project_id: change.projectId,
        service_id: change.serviceId,
        revision: change.revision,
        kind: change.kind,
        key: change.key,
        op: change.op,
        at: change.at,
      })
      .execute();
    return change;
  }
}
