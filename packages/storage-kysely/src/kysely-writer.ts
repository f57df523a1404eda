/**
 * Writes, over one transaction's connection. Every write that api instances must see appends
 * to the change log; value writes also bump the project's revision. How the transaction begins
 * and orders writers is the store's business: it hands the writer a connection already inside.
 */
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
import {
  deleteExpiredIdentityKeys,
  deleteIdentity,
  deleteIdentityKeys,
  insertIdentity,
  touchIdentity,
  updateIdentity,
} from './identity-queries.ts';
import { KyselyReader } from './kysely-reader.ts';
import { insertProject, insertService, updateProject } from './project-queries.ts';
import {
  deleteSecret,
  deleteSecretVersion,
  insertSecretVersion,
  maxSecretVersion,
  replaceSealed,
} from './secret-queries.ts';
import type { StoreDialect } from './store-dialect.ts';
import { deleteValue, putConfig, putFlag } from './value-queries.ts';
import { insertWorkspace, updateWorkspace } from './workspace-queries.ts';
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

  insertWorkspace(input: { slug: string; name: string }): Promise<Workspace> {
    return insertWorkspace(this.tx, input);
  }

  updateWorkspace(id: string, patch: { billingStatus?: BillingStatus }): Promise<Workspace> {
    return updateWorkspace(this.tx, id, patch);
  }

  insertProject(input: { workspaceId: string; slug: string; name: string }): Promise<Project> {
    return insertProject(this.tx, input);
  }

  updateProject(id: string, patch: { abTesting?: boolean }): Promise<Project> {
    return updateProject(this.tx, id, patch);
  }

  insertService(input: { projectId: string; slug: string; name: string }): Promise<Service> {
    return insertService(this.tx, input);
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
