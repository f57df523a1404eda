/**
 * Reads over a Kysely instance that is either the store's database or one transaction's
 * connection, so the same queries serve both, on SQLite and PostgreSQL alike (where they
 * differ, the dialect says how).
 */
import type { Kysely } from 'kysely';
import type {
  ApiKeyRecord,
  AuditEntry,
  Change,
  ConfigEntry,
  FlagEntry,
  IdentityRecord,
  Project,
  ProjectState,
  Scope,
  SealedVersionRef,
  SecretVersion,
  Service,
  StoreReader,
  Workspace,
} from '@svc/domain';
import { findApiKeyById, findApiKeyByHash, listApiKeys } from './api-key-queries.ts';
import { listAudit } from './audit-queries.ts';
import { changesAfter, lastChangeSeq } from './change-log.ts';
import type { Database } from './database.ts';
import { countLiveIdentityKeys, findIdentity, listIdentities } from './identity-queries.ts';
import {
  groupByScope,
  toConfig,
  toFlag,
  toProject,
  toSecretVersion,
  toService,
  toWorkspace,
} from './rows.ts';
import {
  currentSecretVersions,
  findSecret,
  listSealedVersions,
  listSecrets,
  listSecretVersions,
} from './secret-queries.ts';
import type { StoreDialect } from './store-dialect.ts';
import { findConfig, findFlag, listConfigs, listFlags } from './value-queries.ts';

/** The StoreReader of the Kysely adapters, on the store's database or in a transaction. */
export class KyselyReader implements StoreReader {
  constructor(
    protected readonly db: Kysely<Database>,
    protected readonly dialect: StoreDialect,
  ) {}

  async findWorkspaceBySlug(slug: string): Promise<Workspace | undefined> {
    const row = await this.db
      .selectFrom('workspaces')
      .selectAll()
      .where('slug', '=', slug)
      .executeTakeFirst();
    return row && toWorkspace(row);
  }

  async findWorkspaceById(id: string): Promise<Workspace | undefined> {
    const row = await this.db
      .selectFrom('workspaces')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toWorkspace(row);
  }

  async listWorkspaces(): Promise<Workspace[]> {
    const rows = await this.db
      .selectFrom('workspaces')
      .selectAll()
      .orderBy(this.dialect.byCodePoint('slug'))
      .execute();
    return rows.map(toWorkspace);
  }

  async findProject(workspaceId: string, slug: string): Promise<Project | undefined> {
    const row = await this.db
      .selectFrom('projects')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('slug', '=', slug)
      .executeTakeFirst();
    return row && toProject(row);
  }

  async findProjectById(id: string): Promise<Project | undefined> {
    const row = await this.db
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toProject(row);
  }

  async listProjects(workspaceId?: string): Promise<Project[]> {
    let query = this.db.selectFrom('projects').selectAll();
    if (workspaceId !== undefined) query = query.where('workspace_id', '=', workspaceId);
    const rows = await query
      .orderBy(this.dialect.byCodePoint('workspace_id'))
      .orderBy(this.dialect.byCodePoint('slug'))
      .execute();
    return rows.map(toProject);
  }

  async findService(projectId: string, slug: string): Promise<Service | undefined> {
    const row = await this.db
      .selectFrom('services')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('slug', '=', slug)
      .executeTakeFirst();
    return row && toService(row);
  }

  async listServices(projectId: string): Promise<Service[]> {
    const rows = await this.db
      .selectFrom('services')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy(this.dialect.byCodePoint('slug'))
      .execute();
    return rows.map(toService);
  }

  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return findApiKeyByHash(this.db, hash);
  }

  findApiKeyById(id: string): Promise<ApiKeyRecord | undefined> {
    return findApiKeyById(this.db, id);
  }

  listApiKeys(projectId?: string): Promise<ApiKeyRecord[]> {
    return listApiKeys(this.db, this.dialect, projectId);
  }

  listConfigs(scope: Scope): Promise<ConfigEntry[]> {
    return listConfigs(this.db, this.dialect, scope);
  }

  listFlags(scope: Scope): Promise<FlagEntry[]> {
    return listFlags(this.db, this.dialect, scope);
  }

  findConfig(scope: Scope, key: string): Promise<ConfigEntry | undefined> {
    return findConfig(this.db, scope, key);
  }

  findFlag(scope: Scope, key: string): Promise<FlagEntry | undefined> {
    return findFlag(this.db, scope, key);
  }

  listSecrets(scope: Scope): Promise<SecretVersion[]> {
    return listSecrets(this.db, this.dialect, scope);
  }

  findSecret(scope: Scope, key: string): Promise<SecretVersion | undefined> {
    return findSecret(this.db, scope, key);
  }

  listSecretVersions(scope: Scope, key: string): Promise<SecretVersion[]> {
    return listSecretVersions(this.db, scope, key);
  }

  listSealedVersions(): Promise<SealedVersionRef[]> {
    return listSealedVersions(this.db, this.dialect);
  }

  /**
   * The dialect's own read of the whole project if it has one, otherwise one query per table,
   * whatever the number of items (run it in one snapshot to have the revision match the values).
   */
  async loadProjectState(projectId: string): Promise<ProjectState | undefined> {
    if (this.dialect.loadProjectState) return this.dialect.loadProjectState(this.db, projectId);
    const project = await this.findProjectById(projectId);
    if (!project) return undefined;
    const services = await this.listServices(projectId);
    const configs = await this.db
      .selectFrom('configs')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy(this.dialect.byCodePoint('scope'))
      .orderBy(this.dialect.byCodePoint('key'))
      .execute();
    const flags = await this.db
      .selectFrom('flags')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy(this.dialect.byCodePoint('scope'))
      .orderBy(this.dialect.byCodePoint('key'))
      .execute();
    const secrets = await currentSecretVersions(this.db, projectId)
      .orderBy(this.dialect.byCodePoint('v.scope'))
      .orderBy(this.dialect.byCodePoint('v.key'))
      .execute();
    return {
      project,
      services,
      configs: groupByScope(configs, toConfig),
      flags: groupByScope(flags, toFlag),
      secrets: groupByScope(secrets, toSecretVersion),
    };
  }

  changesAfter(afterSeq: number, limit: number): Promise<Change[]> {
    return changesAfter(this.db, afterSeq, limit);
  }

  lastChangeSeq(): Promise<number> {
    return lastChangeSeq(this.db);
  }

  listAudit(workspaceId: string, limit: number): Promise<AuditEntry[]> {
    return listAudit(this.db, this.dialect, workspaceId, limit);
  }

  findIdentity(id: string): Promise<IdentityRecord | undefined> {
    return findIdentity(this.db, id);
  }

  listIdentities(projectId: string): Promise<IdentityRecord[]> {
    return listIdentities(this.db, this.dialect, projectId);
  }

  countLiveIdentityKeys(projectId: string, now: number): Promise<Map<string, number>> {
    return countLiveIdentityKeys(this.db, projectId, now);
  }
}
