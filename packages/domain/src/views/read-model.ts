/**
 * What an api instance holds in memory: workspaces, projects, active keys and every view,
 * kept current by applying the change log. Requests are answered from here alone.
 */
import { parseApiKey, type KeyType } from '../api-key-format.ts';
import { NotFoundError, UnauthorizedError } from '../errors.ts';
import type { ApiKeyRecord, Change, Project, Workspace } from '../model.ts';
import {
  systemClock,
  type Clock,
  type Digest,
  type KeyHasher,
  type ProjectState,
  type SecretSealer,
  type StoreReader,
} from '../ports.ts';
import { openSecret } from '../secrets.ts';
import { AppliedSeq } from './applied-seq.ts';
import { readBatch } from './change-batch.ts';
import { ProjectViews, type ViewChange } from './project-views.ts';
import { viewId, type View } from './view.ts';

export interface ReadModelDeps {
  store: StoreReader;
  sealer: SecretSealer;
  hasher: KeyHasher;
  digest: Digest;
  /** Told of each successful authentication (to record when a key was last used). */
  onKeyUsed?: (keyId: string) => void;
  /**
   * Told of a secret version this instance cannot open (sealed under a root key it does not
   * hold) while applying the change log: that one version is skipped, the rest applied.
   */
  onUnopenable?: (secret: UnopenableSecret, error: Error) => void;
  /** Decides when minted keys expire (default: the system clock). */
  clock?: Clock;
}

/** Where a secret version that could not be opened lives. */
export interface UnopenableSecret {
  projectId: string;
  serviceId: string | null;
  key: string;
  version: number;
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
  /** Every view replaced, with its item changes (none when only a flag's targeting changed). */
  views: ViewChange[];
  /** Keys revoked in this batch: their streams close. */
  revokedKeyIds: string[];
}

/** Enough for every key of a large installation; past it the cache starts over. */
const PRINCIPAL_CACHE_MAX = 10_000;
/** How often expired minted keys are dropped from memory (they are refused from their expiry on). */
const EXPIRED_KEY_SWEEP_MS = 60_000;

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
  private readonly applied = new AppliedSeq();
  /** Past `load()`: from then on a secret that cannot be opened is skipped, not fatal. */
  private loaded = false;
  private readonly clock: Clock;
  private nextExpirySweep = 0;

  constructor(private readonly deps: ReadModelDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  /** Loads everything; returns the change-log seq the model is current with. */
  async load(): Promise<number> {
    // Read the log head first: anything committed after it is applied again later, harmlessly.
    const seq = await this.deps.store.lastChangeSeq();
    for (const ws of await this.deps.store.listWorkspaces()) this.putWorkspace(ws);
    for (const key of await this.deps.store.listApiKeys()) this.putKey(key);
    for (const project of await this.deps.store.listProjects()) await this.loadProject(project.id);
    this.loaded = true;
    this.applied.advance(seq);
    return seq;
  }

  /** The seq of the last change applied (all of its batch with it). */
  get seq(): number {
    return this.applied.value;
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

  /** The key with this id while it can authenticate (it exists, is not revoked, has not expired). */
  activeKey(keyId: string): ApiKeyRecord | undefined {
    const hash = this.keyHashById.get(keyId);
    const key = hash === undefined ? undefined : this.keysByHash.get(hash);
    return key && (key.expiresAt === null || key.expiresAt > this.clock.now()) ? key : undefined;
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
    // Minted keys only: a static key has no expiry and costs no clock read.
    const expiresAt = principal.key.expiresAt;
    if (expiresAt !== null && expiresAt <= this.clock.now()) {
      this.principals.delete(rawKey);
      throw new UnauthorizedError('the API key has expired');
    }
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
   * re-reads that one item and touches only the views that can see it. Every read comes first:
   * when one fails, nothing of the batch is applied and it throws, for the feed to offer the
   * batch again. A secret that cannot be opened is reported and skipped, never the rest.
   */
  async apply(changes: Change[]): Promise<AppliedChanges> {
    const fresh = changes.filter((change) => change.seq > this.applied.value);
    const last = fresh.at(-1);
    if (!last) return { views: [], revokedKeyIds: [] };
    const reads = await readBatch(this.deps.store, fresh, (id) => this.projectViews.has(id));
    // From here on, nothing waits: requests see the batch all at once or not at all.
    for (const ws of reads.workspaces) this.putWorkspace(ws);
    for (const project of reads.projects) this.putProject(project);
    for (const state of reads.newProjects) this.putProjectViews(state);
    for (const { projectId, serviceId } of reads.newServices) {
      for (const view of this.projectViews.get(projectId)?.addService(serviceId) ?? []) {
        this.views.set(view.id, view);
      }
    }
    const views: ViewChange[] = [];
    for (const [projectId, updates] of reads.items) {
      for (const changed of this.projectViews.get(projectId)?.apply(updates) ?? []) {
        this.views.set(changed.view.id, changed.view);
        // Targeting-only edits too (no item changed): /v1/stream skips them, OFREP event
        // streams tell their clients to evaluate again.
        views.push(changed);
      }
    }
    // Keys last, so that a new key never authenticates before its view exists.
    const revokedKeyIds: string[] = [];
    for (const { id, record } of reads.keys) {
      this.removeKey(id);
      if (record && record.revokedAt === null) this.putKey(record);
      else revokedKeyIds.push(id);
    }
    this.applied.advance(last.seq);
    this.sweepExpiredKeys();
    return { views, revokedKeyIds };
  }

  /**
   * Resolves true once the change `seq` is applied (at once if it is), false after `timeoutMs`:
   * a write made through this instance answers when its own change is visible here.
   */
  waitUntilApplied(seq: number, timeoutMs: number): Promise<boolean> {
    return this.applied.reach(seq, timeoutMs);
  }

  /**
   * Forgets minted keys past their expiry, at most once a minute: they are refused from the
   * moment they expire (and their streams closed by the hub), this only frees the memory.
   */
  private sweepExpiredKeys(): void {
    const now = this.clock.now();
    if (now < this.nextExpirySweep) return;
    this.nextExpirySweep = now + EXPIRED_KEY_SWEEP_MS;
    for (const [hash, key] of this.keysByHash) {
      if (key.expiresAt !== null && key.expiresAt <= now) {
        this.keysByHash.delete(hash);
        this.keyHashById.delete(key.id);
        this.principals.clear();
      }
    }
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
    if (key.expiresAt !== null && key.expiresAt <= this.clock.now()) return;
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

  private async loadProject(projectId: string): Promise<void> {
    const state = await this.deps.store.loadProjectState(projectId);
    if (state) this.putProjectViews(state);
  }

  /** Builds a project's views from its whole state (opening each secret once). */
  private putProjectViews(state: ProjectState): void {
    const projectId = state.project.id;
    const views = ProjectViews.build(state, {
      digest: this.deps.digest,
      open: (secret, serviceId) => openSecret(this.deps.sealer, { projectId, serviceId }, secret),
      onUnopenable: (secret, serviceId, error) => {
        // While loading, a secret that does not open means a wrong root key: refuse to start.
        if (!this.loaded) throw error;
        this.deps.onUnopenable?.(
          { projectId, serviceId, key: secret.key, version: secret.version },
          error instanceof Error ? error : new Error(String(error)),
        );
      },
    });
    this.projectViews.set(projectId, views);
    this.putProject(state.project);
    for (const view of views.allViews()) this.views.set(view.id, view);
  }
}
