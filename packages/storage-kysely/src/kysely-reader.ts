/**
 * Reads over a Kysely instance that is either the store's database or one transaction's
 * connection, so the same queries serve both, on SQLite and PostgreSQL alike (where they
 * differ, the dialect says how).
 *
 * The queries live with their concept (`*-queries.ts`, beside that concept's writes); this
 * class answers as the StoreReader, and the stores extend it.
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
  findProject,
  findProjectById,
  findService,
  listProjects,
  listServices,
  loadProjectState,
} from './project-queries.ts';
import {
  findSecret,
  listSealedVersions,
  listSecrets,
  listSecretVersions,
} from './secret-queries.ts';
import type { StoreDialect } from './store-dialect.ts';
import { findConfig, findFlag, listConfigs, listFlags } from './value-queries.ts';
import { findWorkspaceById, findWorkspaceBySlug, listWorkspaces } from './workspace-queries.ts';

/** The StoreReader of the Kysely adapters, on the store's database or in a transaction. */
export class KyselyReader implements StoreReader {
  constructor(
    protected readonly db: Kysely<Database>,
    protected readonly dialect: StoreDialect,
  ) {}

  findWorkspaceBySlug(slug: string): Promise<Workspace | undefined> {
    return findWorkspaceBySlug(this.db, slug);
  }

  findWorkspaceById(id: string): Promise<Workspace | undefined> {
    return findWorkspaceById(this.db, id);
  }

  listWorkspaces(): Promise<Workspace[]> {
    return listWorkspaces(this.db, this.dialect);
  }

  findProject(workspaceId: string, slug: string): Promise<Project | undefined> {
    return findProject(this.db, workspaceId, slug);
  }

  findProjectById(id: string): Promise<Project | undefined> {
    return findProjectById(this.db, id);
  }

  listProjects(workspaceId?: string): Promise<Project[]> {
    return listProjects(this.db, this.dialect, workspaceId);
  }

  findService(projectId: string, slug: string): Promise<Service | undefined> {
    return findService(this.db, projectId, slug);
  }

  listServices(projectId: string): Promise<Service[]> {
    return listServices(this.db, this.dialect, projectId);
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

  loadProjectState(projectId: string): Promise<ProjectState | undefined> {
    return loadProjectState(this.db, this.dialect, projectId);
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
