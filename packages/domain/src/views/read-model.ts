/**
 * What an api instance holds in memory: workspaces, projects, active keys and every view,
 * kept current by applying the change log. Requests are answered from here alone.
 */
import { parseApiKey, type KeyType } from '../api-key-format.ts';
import { NotFoundError, UnauthorizedError } from '../errors.ts';
import type { ApiKeyRecord, Change, Project, Workspace } from '../model.ts';
import type { Digest, KeyHasher, SecretSealer, StoreReader } from '../ports.ts';
import { secretContext } from '../secrets.ts';
import { ProjectViews, type ItemUpdate, type ViewChange } from './project-views.ts';
import { viewId, type View } from './view.ts';

export interface ReadModelDeps {
  store: StoreReader;
  sealer: SecretSealer;
  hasher: KeyHasher;
  digest: Digest;
  /** Told of each successful authentication (to record when a key was last used). */
  onKeyUsed?: (keyId: string) => void;
}

/** Who is calling: the outcome of authenticating a request. */
export interface Principal {
  workspace: Workspace;
  project: Project;
  key: ApiKeyRecord;
  keyType: KeyType;
  viewId: string;
}

export interface AppliedChanges {
  views: ViewChange[];
  /** Keys revoked in this batch: their streams close. */
  revokedKeyIds: string[];
}

/** Enough for every key of a large installation; past it the cache starts over. */
const PRINCIPAL_CACHE_MAX = 10_000;

export class ReadModel {
  private readonly workspacesBySlug = new Map<string, Workspace>();
  private readonly workspacesById = new Map<string, Workspace>();
  private readonly projects = new Map<string, Project>();
  private readonly keysByHash = new Map<string, ApiKeyRecord>();
  private readonly keyHashById = new Map<string, string>();
  private readonly views = new Map<string, View>();
  private readonly projectViews = new Map<string, ProjectViews>();
  /**
   * Authenticated keys by their raw value, so that a client's repeated requests skip the
   * checksum and the SHA-256. Only keys that authenticated are held, and the whole cache is
   * dropped, in the same synchronous step, whenever a key, workspace or project record changes.
   */
  private readonly principals = new Map<string, Principal>();
  private lastSeq = 0;

  constructor(private readonly deps: ReadModelDeps) {}

  /** Loads everything; returns the change-log seq the model is current with. */
  async load(): Promise<number> {
    // Read the log head first: anything committed after it is applied again later, harmlessly.
    this.lastSeq = await this.deps.store.lastChangeSeq();
    for (const ws of await this.deps.store.listWorkspaces()) this.putWorkspace(ws);
    for (const key of await this.deps.store.listApiKeys()) this.putKey(key);
    for (const project of await this.deps.store.listProjects()) await this.loadProject(project.id);
    return this.lastSeq;
  }

  get seq(): number {
    return this.lastSeq;
  }

  get viewCount(): number {
    return this.views.size;
  }

  view(id: string): View | undefined {
    return this.views.get(id);
  }

  /** The view a principal sees (always loaded before its key can authenticate). */
  viewOf(principal: Principal): View {
    const view = this.views.get(principal.viewId);
    if (!view) throw new Error(`view ${principal.viewId} is not loaded`);
    return view;
  }

  workspaceBySlug(slug: string): Workspace | undefined {
    return this.workspacesBySlug.get(slug);
  }

  /**
   * Resolves the workspace (404 before the key is looked at) and the key: missing, malformed,
   * revoked and other workspaces' keys are all 401.
   */
  authenticate(slug: string, rawKey: string | undefined): Principal {
    const workspace = this.workspacesBySlug.get(slug);
    if (!workspace) throw new NotFoundError(`no workspace '${slug}'`);
    if (rawKey === undefined) throw new UnauthorizedError();
    let principal = this.principals.get(rawKey);
    if (!principal) {
      principal = this.resolveKey(rawKey);
      if (this.principals.size >= PRINCIPAL_CACHE_MAX) this.principals.clear();
      this.principals.set(rawKey, principal);
    }
    if (principal.workspace !== workspace) throw new UnauthorizedError();
    this.deps.onKeyUsed?.(principal.key.id);
    return principal;
  }

  /**
   * The principal of a key, from the SHA-256 of the key: a map lookup by the hash of a random
   * 200-bit key, whose timing reveals nothing usable. Throws UnauthorizedError.
   */
  private resolveKey(rawKey: string): Principal {
    const parsed = parseApiKey(rawKey);
    if (!parsed) throw new UnauthorizedError();
    const key = this.keysByHash.get(this.deps.hasher.hash(rawKey));
    if (!key || key.revokedAt !== null || key.kind !== parsed.kind) throw new UnauthorizedError();
    const workspace = this.workspacesById.get(key.workspaceId);
    const project = this.projects.get(key.projectId);
    if (!workspace || !project) throw new UnauthorizedError();
    return {
      workspace,
      project,
      key,
      keyType: parsed.keyType,
      viewId: viewId(key.projectId, key.serviceId, parsed.keyType),
    };
  }

  /**
   * Applies a batch of the change log, in order; returns what changed per view. A value change
   * re-reads that one item and touches only the views that can see it.
   */
  async apply(changes: Change[]): Promise<AppliedChanges> {
    const projectIds = new Set<string>();
    const newServices: Change[] = [];
    // One read per item, however often the batch changed it; the last change names its revision.
    const items = new Map<string, Change>();
    const keyIds = new Set<string>();
    for (const change of changes) {
      if (change.seq <= this.lastSeq) continue;
      this.lastSeq = change.seq;
      if (change.kind === 'workspace') {
        const ws = await this.deps.store.findWorkspaceById(change.workspaceId);
        if (ws) this.putWorkspace(ws);
      } else if (change.kind === 'key') {
        keyIds.add(change.key);
      } else if (change.projectId === null) {
        continue;
      } else if (change.kind === 'project') {
        projectIds.add(change.projectId);
      } else if (change.kind === 'service') {
        newServices.push(change);
      } else {
        const id = `${change.projectId}|${change.serviceId ?? ''}|${change.kind}|${change.key}`;
        items.delete(id);
        items.set(id, change);
      }
    }
    for (const projectId of projectIds) await this.refreshProject(projectId);
    for (const change of newServices) {
      for (const view of this.projectViews.get(change.projectId!)?.addService(change.serviceId!) ??
        []) {
        this.views.set(view.id, view);
      }
    }
    const updates = new Map<string, ItemUpdate[]>();
    for (const change of items.values()) {
      const projectId = change.projectId!;
      if (!this.projectViews.has(projectId)) continue;
      let list = updates.get(projectId);
      if (!list) updates.set(projectId, (list = []));
      list.push(await this.readItem(change));
    }
    const views: ViewChange[] = [];
    for (const [projectId, list] of updates) {
      for (const changed of this.projectViews.get(projectId)!.apply(list)) {
        this.views.set(changed.view.id, changed.view);
        if (changed.changes.length > 0) views.push(changed);
      }
    }
    // Keys last, so that a new key never authenticates before its view exists.
    const revokedKeyIds: string[] = [];
    for (const id of keyIds) {
      const key = await this.deps.store.findApiKeyById(id);
      this.removeKey(id);
      if (key && key.revokedAt === null) this.putKey(key);
      else revokedKeyIds.push(id);
    }
    return { views, revokedKeyIds };
  }

  private putWorkspace(ws: Workspace): void {
    this.principals.clear();
    const previous = this.workspacesById.get(ws.id);
    if (previous) this.workspacesBySlug.delete(previous.slug);
    this.workspacesById.set(ws.id, ws);
    this.workspacesBySlug.set(ws.slug, ws);
  }

  private putProject(project: Project): void {
    this.principals.clear();
    this.projects.set(project.id, project);
  }

  private putKey(key: ApiKeyRecord): void {
    this.principals.clear();
    if (key.revokedAt !== null) return;
    this.keysByHash.set(key.hash, key);
    this.keyHashById.set(key.id, key.hash);
  }

  private removeKey(id: string): void {
    this.principals.clear();
    const hash = this.keyHashById.get(id);
    if (hash === undefined) return;
    this.keysByHash.delete(hash);
    this.keyHashById.delete(id);
  }

  /** The item as it is now, for the views to take over. */
  private async readItem(change: Change): Promise<ItemUpdate> {
    const scope = { projectId: change.projectId!, serviceId: change.serviceId };
    const at = { serviceId: change.serviceId, revision: change.revision ?? 0, key: change.key };
    const store = this.deps.store;
    if (change.kind === 'config') {
      return { ...at, kind: 'config', entry: await store.findConfig(scope, change.key) };
    }
    if (change.kind === 'flag') {
      return { ...at, kind: 'flag', entry: await store.findFlag(scope, change.key) };
    }
    return { ...at, kind: 'secret', entry: await store.findSecret(scope, change.key) };
  }

  /** A project's record changed (the AB add-on; its views do not depend on it), or it is new. */
  private async refreshProject(projectId: string): Promise<void> {
    if (!this.projectViews.has(projectId)) return this.loadProject(projectId);
    const project = await this.deps.store.findProjectById(projectId);
    if (project) this.putProject(project);
  }

  private async loadProject(projectId: string): Promise<void> {
    const state = await this.deps.store.loadProjectState(projectId);
    if (!state) return;
    const views = ProjectViews.build(state, {
      digest: this.deps.digest,
      open: (secret, serviceId) =>
        this.deps.sealer.open(
          secret.sealed,
          secretContext({ projectId, serviceId }, secret.key, secret.version),
        ),
    });
    this.projectViews.set(projectId, views);
    this.putProject(state.project);
    for (const view of views.allViews()) this.views.set(view.id, view);
  }
}
