/**
 * Writes, over one transaction's connection. Every write that api instances must see appends
 * to the change log; value writes also bump the project's revision. How the transaction begins
 * and orders writers is the store's business: it hands the writer a connection already inside.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  NotFoundError,
  type ApiKeyRecord,
  type AuditEntry,
  type BillingStatus,
  type Change,
  type Clock,
  type ConfigEntry,
  type FlagEntry,
  type IdentityRecord,
  type NewIdentity,
  type NewSecretVersion,
  type Project,
  type Scope,
  type SealedVersionRef,
  type Service,
  type StoreWriter,
  type Workspace,
} from '@svc/domain';
import { insertApiKey, revokeApiKey, touchApiKeys } from './api-key-queries.ts';
import { appendAudit } from './audit-queries.ts';
import { ChangeLog } from './change-log.ts';
import type { Database } from './database.ts';
import { toFlag01, toProject, toService, toWorkspace } from './rows.ts';
import { KyselyReader } from './kysely-reader.ts';
import {
  deleteExpiredIdentityKeys,
  deleteIdentity,
  deleteIdentityKeys,
  insertIdentity,
  touchIdentity,
  updateIdentity,
} from './identity-queries.ts';
import {
  deleteSecret,
  deleteSecretVersion,
  insertSecretVersion,
  maxSecretVersion,
  replaceSealed,
} from './secret-queries.ts';
import type { StoreDialect } from './store-dialect.ts';
import { deleteValue, putConfig, putFlag } from './value-queries.ts';
import { conflictOnDuplicate, type WriteContext } from './write-context.ts';

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
  private readonly tx: WriteContext;

  constructor(db: Kysely<Database>, options: KyselyWriterOptions) {
    super(db, options.dialect);
    this.clock = options.clock;
    const changeLog = new ChangeLog(db, options.clock, options.onFirstChange);
    this.tx = { db, dialect: options.dialect, clock: options.clock, changeLog };
  }

  async insertWorkspace(input: { slug: string; name: string }): Promise<Workspace> {
    const row = {
      id: randomUUID(),
      slug: input.slug,
      name: input.name,
      billing_status: 'ok' as const,
      created_at: this.clock.now(),
    };
    await conflictOnDuplicate(this.tx, `workspace '${input.slug}' exists`, () =>
      this.db.insertInto('workspaces').values(row).execute(),
    );
    await this.tx.changeLog.append({ workspaceId: row.id, kind: 'workspace', key: row.slug });
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
    await this.tx.changeLog.append({ workspaceId: id, kind: 'workspace', key: workspace.slug });
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
    await conflictOnDuplicate(this.tx, `project '${input.slug}' exists`, () =>
      this.db.insertInto('projects').values(row).execute(),
    );
    await this.tx.changeLog.append({
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
    await this.tx.changeLog.append({
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
    await conflictOnDuplicate(this.tx, `service '${input.slug}' exists`, () =>
      this.db.insertInto('services').values(row).execute(),
    );
    await this.tx.changeLog.append({
      workspaceId: project.workspaceId,
      projectId: project.id,
      serviceId: row.id,
      kind: 'service',
      key: row.slug,
    });
    return toService(row);
  }

  insertApiKey(input: Parameters<StoreWriter['insertApiKey']>[0]): Promise<ApiKeyRecord> {
    return insertApiKey(this.tx, input);
  }

  revokeApiKey(projectId: string, id: string): Promise<boolean> {
    return revokeApiKey(this.tx, projectId, id);
  }

  touchApiKeys(ids: string[], at: number): Promise<void> {
    return touchApiKeys(this.tx, ids, at);
  }

  async insertIdentity(input: NewIdentity): Promise<IdentityRecord> {
    let identity: IdentityRecord | undefined;
    await conflictOnDuplicate(this.tx, `identity '${input.name}' exists`, async () => {
      identity = await insertIdentity(this.db, input, this.clock.now());
    });
    return identity!;
  }

  async updateIdentity(id: string, input: NewIdentity): Promise<IdentityRecord> {
    let identity: IdentityRecord | undefined;
    await conflictOnDuplicate(this.tx, `identity '${input.name}' exists`, async () => {
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
      await this.tx.changeLog.append({
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

  putConfig(scope: Scope, entry: Omit<ConfigEntry, 'updatedAt'>): Promise<Change> {
    return putConfig(this.tx, scope, entry);
  }

  deleteConfig(scope: Scope, key: string): Promise<Change | undefined> {
    return deleteValue(this.tx, 'config', scope, key);
  }

  putFlag(scope: Scope, entry: Omit<FlagEntry, 'updatedAt'>): Promise<Change> {
    return putFlag(this.tx, scope, entry);
  }

  deleteFlag(scope: Scope, key: string): Promise<Change | undefined> {
    return deleteValue(this.tx, 'flag', scope, key);
  }

  maxSecretVersion(scope: Scope, key: string): Promise<number> {
    return maxSecretVersion(this.db, scope, key);
  }

  insertSecretVersion(scope: Scope, key: string, version: NewSecretVersion): Promise<Change> {
    return insertSecretVersion(this.tx, scope, key, version);
  }

  deleteSecret(scope: Scope, key: string): Promise<Change | undefined> {
    return deleteSecret(this.tx, scope, key);
  }

  deleteSecretVersion(scope: Scope, key: string, version: number): Promise<Change | undefined> {
    return deleteSecretVersion(this.tx, scope, key, version);
  }

  replaceSealed(ref: SealedVersionRef): Promise<boolean> {
    return replaceSealed(this.tx, ref);
  }

  appendAudit(entry: Omit<AuditEntry, 'id' | 'at'>): Promise<void> {
    return appendAudit(this.tx, entry);
  }
}
