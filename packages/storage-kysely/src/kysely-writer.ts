/**
 * Writes, over one transaction's connection. Every write that api instances must see appends
 * to the change log; value writes also bump the project's revision. How the transaction begins
 * and orders writers is the store's business: it hands the writer a connection already inside.
 *
 * The writes themselves live with their concept (`*-queries.ts`, beside that concept's reads);
 * this class only gives them the transaction's write context and answers as the StoreWriter.
 */
import type { Kysely } from 'kysely';
import type {
  ApiKeyRecord,
  AuditEntry,
  BillingStatus,
  Change,
  Clock,
  ConfigEntry,
  FlagEntry,
  IdentityRecord,
  NewIdentity,
  NewSecretVersion,
  Project,
  Scope,
  SealedVersionRef,
  Service,
  StoreWriter,
  Workspace,
} from '@svc/domain';
import { insertApiKey, revokeApiKey, touchApiKeys } from './api-key-queries.ts';
import { appendAudit } from './audit-queries.ts';
import { ChangeLog } from './change-log.ts';
import type { Database } from './database.ts';
import {
  deleteExpiredIdentityKeys,
  deleteIdentity,
  insertIdentity,
  revokeIdentityKeys,
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
import type { WriteContext } from './write-context.ts';

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
  private readonly tx: WriteContext;

  constructor(db: Kysely<Database>, options: KyselyWriterOptions) {
    super(db, options.dialect);
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

  insertIdentity(input: NewIdentity): Promise<IdentityRecord> {
    return insertIdentity(this.tx, input);
  }

  updateIdentity(id: string, input: NewIdentity): Promise<IdentityRecord> {
    return updateIdentity(this.tx, id, input);
  }

  deleteIdentity(id: string): Promise<boolean> {
    return deleteIdentity(this.db, id);
  }

  touchIdentity(id: string, at: number): Promise<boolean> {
    return touchIdentity(this.db, id, at);
  }

  revokeIdentityKeys(identityId: string, now: number): Promise<number> {
    return revokeIdentityKeys(this.tx, identityId, now);
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
