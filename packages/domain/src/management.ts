/**
 * The console's management operations. Each runs in one transaction, validates its input,
 * writes an audit entry, and (through the store) appends to the change log so every api
 * instance picks the change up.
 */
import type { KeyKind } from './api-key-format.ts';
import { parseApiKey } from './api-key-format.ts';
import type { TargetingRule } from './ab/rules.ts';
import { validateFlagTargeting } from './ab/validate.ts';
import { ConflictError, NotFoundError, PayloadTooLargeError, ValidationError } from './errors.ts';
import type {
  ApiKeyRecord,
  AuditEntry,
  BillingStatus,
  ConfigEntry,
  FlagEntry,
  Project,
  Scope,
  SecretType,
  Service,
  Workspace,
} from './model.ts';
import { assertItemKey, assertSlug } from './names.ts';
import type { Clock, KeyGenerator, KeyHasher, SecretSealer, Store, StoreReader } from './ports.ts';
import {
  deleteSecret,
  deleteSecretVersion,
  secretContext,
  setSecret,
  type SetSecretResult,
} from './secrets.ts';

export const CONFIG_VALUE_MAX_BYTES = 256 * 1024;
const NAME_MAX_LENGTH = 200;

export interface ManagementDeps {
  store: Store;
  hasher: KeyHasher;
  keys: KeyGenerator;
  sealer: SecretSealer;
  clock: Clock;
}

/** Addresses a scope by slugs, as the management API does. */
export interface ScopeRef {
  workspace: string;
  project: string;
  /** Service slug for service level; absent for project level. */
  service?: string;
}

export interface CreatedApiKey {
  id: string;
  /** The plaintext key: shown this once, never stored. */
  key: string;
  kind: KeyKind;
  service: string | null;
}

export interface SecretListing {
  key: string;
  version: number;
  type: SecretType;
  fileName: string | null;
  versions: number[];
  value?: string;
}

export type ItemKindPlural = 'configs' | 'flags' | 'secrets';

export class Management {
  constructor(
    private readonly deps: ManagementDeps,
    private readonly actor = 'admin',
  ) {}

  /** The same operations, audited as done by another actor. */
  as(actor: string): Management {
    return new Management(this.deps, actor);
  }

  async createWorkspace(input: { slug: string; name: string }): Promise<Workspace> {
    assertSlug('slug', input.slug);
    assertName(input.name);
    return this.deps.store.transaction(async (tx) => {
      if (await tx.findWorkspaceBySlug(input.slug)) {
        throw new ConflictError(`workspace '${input.slug}' exists`);
      }
      const ws = await tx.insertWorkspace(input);
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'workspace.create',
        target: ws.slug,
      });
      return ws;
    });
  }

  async updateWorkspace(
    slug: string,
    patch: { billingStatus?: BillingStatus },
  ): Promise<Workspace> {
    return this.deps.store.transaction(async (tx) => {
      const ws = await requireWorkspace(tx, slug);
      const updated = await tx.updateWorkspace(ws.id, patch);
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'workspace.update',
        target: `${slug} billing_status=${updated.billingStatus}`,
      });
      return updated;
    });
  }

  async getWorkspace(slug: string): Promise<Workspace> {
    return requireWorkspace(this.deps.store, slug);
  }

  async listWorkspaces(): Promise<Workspace[]> {
    return this.deps.store.listWorkspaces();
  }

  async createProject(workspace: string, input: { slug: string; name: string }): Promise<Project> {
    assertSlug('slug', input.slug);
    assertName(input.name);
    return this.deps.store.transaction(async (tx) => {
      const ws = await requireWorkspace(tx, workspace);
      if (await tx.findProject(ws.id, input.slug)) {
        throw new ConflictError(`project '${input.slug}' exists`);
      }
      const project = await tx.insertProject({ workspaceId: ws.id, ...input });
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'project.create',
        target: input.slug,
      });
      return project;
    });
  }

  async listProjects(workspace: string): Promise<Project[]> {
    const ws = await requireWorkspace(this.deps.store, workspace);
    return this.deps.store.listProjects(ws.id);
  }

  async updateProject(
    workspace: string,
    project: string,
    patch: { abTesting?: boolean },
  ): Promise<Project> {
    return this.deps.store.transaction(async (tx) => {
      const { ws, project: p } = await requireProject(tx, workspace, project);
      const updated = await tx.updateProject(p.id, patch);
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'project.update',
        target: `${project} ab_testing=${updated.abTesting}`,
      });
      return updated;
    });
  }

  async createService(
    workspace: string,
    project: string,
    input: { slug: string; name: string },
  ): Promise<Service> {
    assertSlug('slug', input.slug);
    assertName(input.name);
    return this.deps.store.transaction(async (tx) => {
      const { ws, project: p } = await requireProject(tx, workspace, project);
      if (await tx.findService(p.id, input.slug)) {
        throw new ConflictError(`service '${input.slug}' exists`);
      }
      const service = await tx.insertService({ projectId: p.id, ...input });
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'service.create',
        target: `${project}/${input.slug}`,
      });
      return service;
    });
  }

  async listServices(workspace: string, project: string): Promise<Service[]> {
    const { project: p } = await requireProject(this.deps.store, workspace, project);
    return this.deps.store.listServices(p.id);
  }

  async createApiKey(
    workspace: string,
    project: string,
    input: { kind: KeyKind; service?: string; name?: string },
  ): Promise<CreatedApiKey> {
    if (input.name !== undefined) assertName(input.name);
    return this.deps.store.transaction(async (tx) => {
      const { ws, project: p } = await requireProject(tx, workspace, project);
      const service =
        input.service === undefined ? undefined : await requireService(tx, p, input.service);
      const key = this.deps.keys.generate(input.kind);
      const parsed = parseApiKey(key);
      if (!parsed) throw new Error('key generator produced a malformed key');
      const record = await tx.insertApiKey({
        workspaceId: ws.id,
        projectId: p.id,
        serviceId: service?.id ?? null,
        kind: input.kind,
        name: input.name ?? `${input.kind} key`,
        prefix: parsed.prefix,
        hash: this.deps.hasher.hash(key),
      });
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'key.create',
        target: `${project} ${record.prefix}… (${input.kind})`,
      });
      return { id: record.id, key, kind: input.kind, service: service?.slug ?? null };
    });
  }

  async listApiKeys(
    workspace: string,
    project: string,
  ): Promise<Array<ApiKeyRecord & { service: string | null }>> {
    const { project: p } = await requireProject(this.deps.store, workspace, project);
    const services = new Map((await this.deps.store.listServices(p.id)).map((s) => [s.id, s.slug]));
    const keys = await this.deps.store.listApiKeys(p.id);
    return keys.map((k) => ({
      ...k,
      service: k.serviceId === null ? null : (services.get(k.serviceId) ?? null),
    }));
  }

  async revokeApiKey(workspace: string, project: string, id: string): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const { ws, project: p } = await requireProject(tx, workspace, project);
      const key = await tx.findApiKeyById(id);
      if (!key || key.projectId !== p.id || !(await tx.revokeApiKey(p.id, id))) {
        throw new NotFoundError(`no active key '${id}'`);
      }
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'key.revoke',
        target: `${project} ${key.prefix}…`,
      });
    });
  }

  async putConfig(
    ref: ScopeRef,
    key: string,
    input: { value: unknown; isPublic: boolean },
  ): Promise<ConfigEntry> {
    assertItemKey('key', key);
    const valueJson = JSON.stringify(input.value);
    if (valueJson === undefined) throw new ValidationError('value', 'must be a JSON value');
    if (new TextEncoder().encode(valueJson).length > CONFIG_VALUE_MAX_BYTES) {
      throw new PayloadTooLargeError(`value: more than ${CONFIG_VALUE_MAX_BYTES} bytes encoded`);
    }
    return this.inScope(ref, 'config.put', key, async (tx, scope) => {
      await tx.putConfig(scope, { key, valueJson, isPublic: input.isPublic });
      return { key, valueJson, isPublic: input.isPublic, updatedAt: this.deps.clock.now() };
    });
  }

  async putFlag(
    ref: ScopeRef,
    key: string,
    input: {
      isActive: boolean;
      rules?: TargetingRule[];
      rolloutPercentage?: number;
      salt?: string | null;
    },
  ): Promise<FlagEntry> {
    assertItemKey('key', key);
    const entry = {
      key,
      isActive: input.isActive,
      rules: input.rules ?? [],
      rolloutPercentage: input.rolloutPercentage ?? 100,
      salt: input.salt ?? null,
    };
    validateFlagTargeting(entry);
    return this.inScope(ref, 'flag.put', key, async (tx, scope) => {
      await tx.putFlag(scope, entry);
      return { ...entry, updatedAt: this.deps.clock.now() };
    });
  }

  async putSecret(
    ref: ScopeRef,
    key: string,
    input: { value: string; type?: SecretType; fileName?: string | null; expectedVersion?: number },
  ): Promise<SetSecretResult> {
    assertItemKey('key', key);
    return this.inScope(ref, 'secret.put', key, (tx, scope) =>
      setSecret(tx, this.deps.sealer, scope, { ...input, key, type: input.type ?? 'text' }),
    );
  }

  async deleteItem(ref: ScopeRef, kind: ItemKindPlural, key: string): Promise<void> {
    assertItemKey('key', key);
    await this.inScope(ref, `${kind.slice(0, -1)}.delete`, key, async (tx, scope) => {
      if (kind === 'secrets') return deleteSecret(tx, scope, key);
      const change =
        kind === 'configs' ? await tx.deleteConfig(scope, key) : await tx.deleteFlag(scope, key);
      if (!change) throw new NotFoundError(`no ${kind.slice(0, -1)} '${key}'`);
      return change;
    });
  }

  async deleteSecretVersion(ref: ScopeRef, key: string, version: number): Promise<void> {
    await this.inScope(ref, 'secret.delete_version', `${key}@${version}`, (tx, scope) =>
      deleteSecretVersion(tx, scope, key, version),
    );
  }

  async listConfigs(ref: ScopeRef): Promise<ConfigEntry[]> {
    return this.deps.store.listConfigs((await this.resolveScope(this.deps.store, ref)).scope);
  }

  async listFlags(ref: ScopeRef): Promise<FlagEntry[]> {
    return this.deps.store.listFlags((await this.resolveScope(this.deps.store, ref)).scope);
  }

  /** Secrets with their remaining versions; values only when `reveal` (and then audited). */
  async listSecrets(ref: ScopeRef, reveal: boolean): Promise<SecretListing[]> {
    const { scope } = await this.resolveScope(this.deps.store, ref);
    const current = await this.deps.store.listSecrets(scope);
    const listings: SecretListing[] = [];
    for (const secret of current) {
      const versions = await this.deps.store.listSecretVersions(scope, secret.key);
      const listing: SecretListing = {
        key: secret.key,
        version: secret.version,
        type: secret.type,
        fileName: secret.fileName,
        versions: versions.map((v) => v.version),
      };
      if (reveal) {
        listing.value = this.deps.sealer.open(
          secret.sealed,
          secretContext(scope, secret.key, secret.version),
        );
      }
      listings.push(listing);
    }
    if (reveal && listings.length > 0) {
      await this.deps.store.transaction(async (tx) => {
        const ws = await requireWorkspace(tx, ref.workspace);
        await tx.appendAudit({
          workspaceId: ws.id,
          actor: this.actor,
          action: 'secret.reveal',
          target: scopeLabel(ref),
        });
      });
    }
    return listings;
  }

  async listAudit(workspace: string, limit = 100): Promise<AuditEntry[]> {
    const ws = await requireWorkspace(this.deps.store, workspace);
    return this.deps.store.listAudit(ws.id, limit);
  }

  private async inScope<T>(
    ref: ScopeRef,
    action: string,
    key: string,
    fn: (tx: Parameters<Parameters<Store['transaction']>[0]>[0], scope: Scope) => Promise<T>,
  ): Promise<T> {
    return this.deps.store.transaction(async (tx) => {
      const { scope, workspaceId } = await this.resolveScope(tx, ref);
      const result = await fn(tx, scope);
      await tx.appendAudit({
        workspaceId,
        actor: this.actor,
        action,
        target: `${scopeLabel(ref)} ${key}`,
      });
      return result;
    });
  }

  /** The scope `ref` names, and the id of its workspace (for the audit row). */
  private async resolveScope(
    reader: StoreReader,
    ref: ScopeRef,
  ): Promise<{ scope: Scope; workspaceId: string }> {
    const { ws, project } = await requireProject(reader, ref.workspace, ref.project);
    const serviceId =
      ref.service === undefined ? null : (await requireService(reader, project, ref.service)).id;
    return { scope: { projectId: project.id, serviceId }, workspaceId: ws.id };
  }
}

function scopeLabel(ref: ScopeRef): string {
  return ref.service === undefined ? ref.project : `${ref.project}/${ref.service}`;
}

function assertName(name: string): void {
  if (name.trim().length === 0 || name.length > NAME_MAX_LENGTH) {
    throw new ValidationError('name', `must be 1..${NAME_MAX_LENGTH} characters`);
  }
}

async function requireWorkspace(reader: StoreReader, slug: string): Promise<Workspace> {
  const ws = await reader.findWorkspaceBySlug(slug);
  if (!ws) throw new NotFoundError(`no workspace '${slug}'`);
  return ws;
}

async function requireProject(
  reader: StoreReader,
  workspace: string,
  slug: string,
): Promise<{ ws: Workspace; project: Project }> {
  const ws = await requireWorkspace(reader, workspace);
  const project = await reader.findProject(ws.id, slug);
  if (!project) throw new NotFoundError(`no project '${slug}' in workspace '${workspace}'`);
  return { ws, project };
}

async function requireService(
  reader: StoreReader,
  project: Project,
  slug: string,
): Promise<Service> {
  const service = await reader.findService(project.id, slug);
  if (!service) throw new NotFoundError(`no service '${slug}' in project '${project.slug}'`);
  return service;
}
