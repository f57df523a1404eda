/**
 * What an api instance holds in memory: workspaces, projects, active keys and every view,
 * kept current by applying the change log. Requests are answered from here alone.
 */
import { parseApiKey, type KeyType } from '../api-key-format.ts';
import { NotFoundError, UnauthorizedError } from '../errors.ts';
import type { ApiKeyRecord, Change, Project, Workspace } from '../model.ts';
import type { Digest, KeyHasher, ProjectState, SecretSealer, StoreReader } from '../ports.ts';
import { secretContext } from '../secrets.ts';
import {
  buildViewContent,
  type ViewContent,
  diffItems,
  renderSnapshot,
  viewId,
  type ItemChange,
  type View,
} from './view.ts';

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

/** One view's changes from one batch of the change log. */
export interface ViewChange {
  view: View;
  changes: ItemChange[];
}

export interface AppliedChanges {
  views: ViewChange[];
  /** Keys revoked in this batch: their streams close. */
  revokedKeyIds: string[];
}

const KEY_TYPES: KeyType[] = ['sk', 'pk'];

export class ReadModel {
  private readonly workspacesBySlug = new Map<string, Workspace>();
  private readonly workspacesById = new Map<string, Workspace>();
  private readonly projects = new Map<string, Project>();
  private readonly keysByHash = new Map<string, ApiKeyRecord>();
  private readonly keyHashById = new Map<string, string>();
  private readonly views = new Map<string, View>();
  private lastSeq = 0;

  constructor(private readonly deps: ReadModelDeps) {}

  /** Loads everything; returns the change-log seq the model is current with. */
  async load(): Promise<number> {
    // Read the log head first: anything committed after it is applied again later, harmlessly.
    this.lastSeq = await this.deps.store.lastChangeSeq();
    for (const ws of await this.deps.store.listWorkspaces()) this.putWorkspace(ws);
    for (const key of await this.deps.store.listApiKeys()) this.putKey(key);
    for (const project of await this.deps.store.listProjects())
      await this.reloadProject(project.id);
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
    const parsed = rawKey === undefined ? undefined : parseApiKey(rawKey);
    if (!parsed || rawKey === undefined) throw new UnauthorizedError();
    const hash = this.deps.hasher.hash(rawKey);
    const key = this.keysByHash.get(hash);
    // The lookup is by the SHA-256 of a random 200-bit key: its timing reveals nothing usable.
    if (
      !key ||
      key.revokedAt !== null ||
      key.workspaceId !== workspace.id ||
      key.kind !== parsed.kind
    ) {
      throw new UnauthorizedError();
    }
    const project = this.projects.get(key.projectId);
    if (!project) throw new UnauthorizedError();
    this.deps.onKeyUsed?.(key.id);
    return {
      workspace,
      project,
      key,
      keyType: parsed.keyType,
      viewId: viewId(key.projectId, key.serviceId, parsed.keyType),
    };
  }

  /** Applies a batch of the change log, in order; returns what changed per view. */
  async apply(changes: Change[]): Promise<AppliedChanges> {
    const projectsToReload = new Set<string>();
    const keyIds = new Set<string>();
    for (const change of changes) {
      if (change.seq <= this.lastSeq) continue;
      if (change.kind === 'workspace') {
        const ws = await this.deps.store.findWorkspaceById(change.workspaceId);
        if (ws) this.putWorkspace(ws);
      } else if (change.kind === 'key') {
        keyIds.add(change.key);
      } else if (change.projectId) {
        projectsToReload.add(change.projectId);
      }
      this.lastSeq = change.seq;
    }
    const views: ViewChange[] = [];
    for (const projectId of projectsToReload) views.push(...(await this.reloadProject(projectId)));
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
    const previous = this.workspacesById.get(ws.id);
    if (previous) this.workspacesBySlug.delete(previous.slug);
    this.workspacesById.set(ws.id, ws);
    this.workspacesBySlug.set(ws.slug, ws);
  }

  private putKey(key: ApiKeyRecord): void {
    if (key.revokedAt !== null) return;
    this.keysByHash.set(key.hash, key);
    this.keyHashById.set(key.id, key.hash);
  }

  private removeKey(id: string): void {
    const hash = this.keyHashById.get(id);
    if (hash === undefined) return;
    this.keysByHash.delete(hash);
    this.keyHashById.delete(id);
  }

  /** Rebuilds the project's views; views whose items did not change are kept as they are. */
  private async reloadProject(projectId: string): Promise<ViewChange[]> {
    const state = await this.deps.store.loadProjectState(projectId);
    if (!state) return [];
    this.projects.set(projectId, state.project);
    const scopes = [null, ...state.services.map((s) => s.id)];
    const changed: ViewChange[] = [];
    for (const serviceId of scopes) {
      for (const keyType of KEY_TYPES) {
        const id = viewId(projectId, serviceId, keyType);
        const content = buildViewContent(state, serviceId, keyType, (secret, scope) =>
          this.deps.sealer.open(
            secret.sealed,
            secretContext({ projectId, serviceId: scope }, secret.key, secret.version),
          ),
        );
        const previous = this.views.get(id);
        const changes = previous ? diffItems(previous.items, content.items) : [];
        // Targeting edits change no item but must reach evaluate-ab: keep the old bytes, new flags.
        if (previous && changes.length === 0) {
          this.views.set(id, { ...previous, flags: content.flags });
          continue;
        }
        const view = this.makeView(state, serviceId, keyType, content);
        this.views.set(id, view);
        if (previous) changed.push({ view, changes });
      }
    }
    return changed;
  }

  private makeView(
    state: ProjectState,
    serviceId: string | null,
    keyType: KeyType,
    content: ViewContent,
  ): View {
    const revision = state.project.revision;
    const body = renderSnapshot(revision, keyType, content.items);
    return {
      id: viewId(state.project.id, serviceId, keyType),
      projectId: state.project.id,
      serviceId,
      keyType,
      revision,
      items: content.items,
      flags: content.flags,
      body,
      etag: `"${this.deps.digest(body)}"`,
    };
  }
}
