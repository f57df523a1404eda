/**
 * The views of one project, kept current one item at a time. A change replaces one value of one
 * scope; only the views that can see that scope are touched, only the changed items are
 * recomputed, and only a view whose items changed is rendered again. Secrets are opened once
 * per version, not once per view.
 */
import type { KeyType } from '../api-key-format.ts';
import type { ConfigEntry, FlagEntry, SecretVersion } from '../model.ts';
import type { Digest, ProjectState } from '../ports.ts';
import {
  itemId,
  parseItemId,
  renderSnapshot,
  secretJson,
  viewId,
  type ItemChange,
  type ItemId,
  type OpenSecret,
  type View,
} from './view.ts';

/** One view's changes from one batch of the change log. */
export interface ViewChange {
  view: View;
  changes: ItemChange[];
}

/** The new state of one item of one scope (`entry` undefined: it no longer exists there). */
export type ItemUpdate = {
  serviceId: string | null;
  /** The project's revision after the change. */
  revision: number;
} & (
  | { kind: 'config'; key: string; entry: ConfigEntry | undefined }
  | { kind: 'flag'; key: string; entry: FlagEntry | undefined }
  | { kind: 'secret'; key: string; entry: SecretVersion | undefined }
);

/** One scope's values: the project level or one service's. */
interface ScopeValues {
  configs: Map<string, ConfigEntry>;
  flags: Map<string, FlagEntry>;
  /** The current version of each secret, with its snapshot JSON (opened once). */
  secrets: Map<string, { version: SecretVersion; json: string }>;
}

const KEY_TYPES: KeyType[] = ['sk', 'pk'];
const PROJECT_LEVEL = '';

/** What the views of one project need: how to open a secret and how to digest a body. */
export interface ProjectViewsDeps {
  open: OpenSecret;
  digest: Digest;
  /**
   * Told of a secret version `open` failed on (sealed under a root key this instance does not
   * hold): it is left out, and a view keeps the version it had. May rethrow to fail instead.
   * Without it, the error is thrown.
   */
  onUnopenable?: (secret: SecretVersion, serviceId: string | null, error: unknown) => void;
}

export class ProjectViews {
  private readonly scopes = new Map<string, ScopeValues>();
  private readonly views = new Map<string, View>();

  private constructor(
    private readonly projectId: string,
    private readonly deps: ProjectViewsDeps,
  ) {}

  /** Every view of the project, built from its whole state. */
  static build(state: ProjectState, deps: ProjectViewsDeps): ProjectViews {
    const pv = new ProjectViews(state.project.id, deps);
    pv.putScope(null, state);
    for (const service of state.services) pv.putScope(service.id, state);
    for (const serviceId of [null, ...state.services.map((s) => s.id)]) {
      for (const keyType of KEY_TYPES) {
        const { items, flags } = pv.content(serviceId, keyType);
        pv.views.set(
          viewId(state.project.id, serviceId, keyType),
          pv.render(serviceId, keyType, state.project.revision, items, flags),
        );
      }
    }
    return pv;
  }

  allViews(): IterableIterator<View> {
    return this.views.values();
  }

  /**
   * A service new to the project: its two views, equal to the project level's until values of
   * its own arrive (which come later in the change log).
   */
  addService(serviceId: string): View[] {
    if (this.scopes.has(serviceId)) return [];
    this.scopes.set(serviceId, emptyScope());
    const added: View[] = [];
    for (const keyType of KEY_TYPES) {
      const { items, flags } = this.content(serviceId, keyType);
      // Its content is the project level's: so is its revision.
      const { revision } = this.views.get(viewId(this.projectId, null, keyType))!;
      const view = this.render(serviceId, keyType, revision, items, flags);
      this.views.set(view.id, view);
      added.push(view);
    }
    return added;
  }

  /**
   * Applies a batch of item updates. Returns every view it replaced, with the item changes
   * (empty when only a flag's targeting changed: same bytes, new flags for evaluate-ab).
   */
  apply(updates: ItemUpdate[]): ViewChange[] {
    // Per view touched: the items to recompute and the newest revision that touched each one.
    const touched = new Map<string, Map<ItemId, number>>();
    for (const update of updates) {
      const scope = this.scopes.get(update.serviceId ?? PROJECT_LEVEL);
      if (!scope) continue; // A scope the project does not have (a service created later).
      if (!this.putItem(scope, update)) continue;
      const id = itemId(update.kind, update.key);
      const serviceIds = update.serviceId === null ? this.serviceIds() : [update.serviceId];
      for (const serviceId of serviceIds) {
        for (const keyType of KEY_TYPES) {
          const vid = viewId(this.projectId, serviceId, keyType);
          let items = touched.get(vid);
          if (!items) touched.set(vid, (items = new Map()));
          items.set(id, Math.max(items.get(id) ?? 0, update.revision));
        }
      }
    }
    const changed: ViewChange[] = [];
    for (const [vid, itemRevisions] of touched) {
      const previous = this.views.get(vid);
      if (!previous) continue;
      const result = this.recompute(previous, itemRevisions);
      if (!result) continue;
      this.views.set(vid, result.view);
      changed.push(result);
    }
    return changed;
  }

  /** The view with the touched items recomputed; undefined when nothing about it changed. */
  private recompute(previous: View, itemRevisions: Map<ItemId, number>): ViewChange | undefined {
    const { serviceId, keyType } = previous;
    let items: Map<ItemId, string> | undefined;
    let flags: Map<string, FlagEntry> | undefined;
    let revision = previous.revision;
    const changes: ItemChange[] = [];
    for (const [id, itemRevision] of itemRevisions) {
      const { kind, key } = parseItemId(id);
      if (kind === 'flag') {
        // Targeting edits change no item but must reach evaluate-ab.
        const flag = this.effective(serviceId, (s) => s.flags.get(key));
        if (flag !== previous.flags.get(key)) {
          flags ??= new Map(previous.flags);
          if (flag) flags.set(key, flag);
          else flags.delete(key);
        }
      }
      const json = this.itemJson(serviceId, keyType, id);
      if (json === previous.items.get(id)) continue;
      items ??= new Map(previous.items);
      if (json === undefined) {
        items.delete(id);
        changes.push({ id, op: 'delete' });
      } else {
        items.set(id, json);
        changes.push({ id, op: 'upsert', json });
      }
      revision = Math.max(revision, itemRevision);
    }
    if (items) {
      const view = this.render(serviceId, keyType, revision, items, flags ?? previous.flags);
      return { view, changes };
    }
    // Same items, same bytes and ETag (clients keep their 304); only the targeting changed.
    return flags ? { view: { ...previous, flags }, changes } : undefined;
  }

  private content(
    serviceId: string | null,
    keyType: KeyType,
  ): { items: Map<ItemId, string>; flags: Map<string, FlagEntry> } {
    const ids = new Set<ItemId>();
    for (const scope of this.visibleScopes(serviceId)) {
      for (const key of scope.configs.keys()) ids.add(itemId('config', key));
      for (const key of scope.flags.keys()) ids.add(itemId('flag', key));
      for (const key of scope.secrets.keys()) ids.add(itemId('secret', key));
    }
    const items = new Map<ItemId, string>();
    const flags = new Map<string, FlagEntry>();
    for (const id of ids) {
      const json = this.itemJson(serviceId, keyType, id);
      if (json !== undefined) items.set(id, json);
      const { kind, key } = parseItemId(id);
      const flag = kind === 'flag' ? this.effective(serviceId, (s) => s.flags.get(key)) : undefined;
      if (flag) flags.set(key, flag);
    }
    return { items, flags };
  }

  /**
   * What a key of `keyType` bound to `serviceId` (or none) sees of one item: the service's
   * value overrides the project's; public keys see public configs (the filter applies after
   * the overlay, so a private override hides a public value), every flag and no secret.
   */
  private itemJson(serviceId: string | null, keyType: KeyType, id: ItemId): string | undefined {
    const { kind, key } = parseItemId(id);
    if (kind === 'config') {
      const config = this.effective(serviceId, (s) => s.configs.get(key));
      if (!config || (keyType === 'pk' && !config.isPublic)) return undefined;
      return config.valueJson;
    }
    if (kind === 'flag') {
      const flag = this.effective(serviceId, (s) => s.flags.get(key));
      return flag && (flag.isActive ? 'true' : 'false');
    }
    if (keyType === 'pk') return undefined;
    return this.effective(serviceId, (s) => s.secrets.get(key))?.json;
  }

  private effective<T>(
    serviceId: string | null,
    pick: (scope: ScopeValues) => T | undefined,
  ): T | undefined {
    const service = serviceId === null ? undefined : this.scopes.get(serviceId);
    return (service && pick(service)) ?? pick(this.scopes.get(PROJECT_LEVEL)!);
  }

  private visibleScopes(serviceId: string | null): ScopeValues[] {
    const project = this.scopes.get(PROJECT_LEVEL)!;
    const service = serviceId === null ? undefined : this.scopes.get(serviceId);
    return service ? [project, service] : [project];
  }

  private serviceIds(): Array<string | null> {
    return [...this.scopes.keys()].map((id) => (id === PROJECT_LEVEL ? null : id));
  }

  private putScope(serviceId: string | null, state: ProjectState): void {
    const scopeKey = serviceId ?? PROJECT_LEVEL;
    const scope = emptyScope();
    for (const c of state.configs.get(scopeKey) ?? []) scope.configs.set(c.key, c);
    for (const f of state.flags.get(scopeKey) ?? []) scope.flags.set(f.key, f);
    for (const s of state.secrets.get(scopeKey) ?? []) {
      const json = this.openedJson(s, serviceId);
      if (json !== undefined) scope.secrets.set(s.key, { version: s, json });
    }
    this.scopes.set(scopeKey, scope);
  }

  /** Takes the update into the scope; false when it is skipped (a secret that cannot be opened). */
  private putItem(scope: ScopeValues, update: ItemUpdate): boolean {
    if (update.kind === 'config') {
      if (update.entry) scope.configs.set(update.key, update.entry);
      else scope.configs.delete(update.key);
    } else if (update.kind === 'flag') {
      if (update.entry) scope.flags.set(update.key, update.entry);
      else scope.flags.delete(update.key);
    } else if (update.entry) {
      const current = scope.secrets.get(update.key);
      // The same version opens to the same value: keep it rather than open it again.
      if (current?.version.version !== update.entry.version) {
        const json = this.openedJson(update.entry, update.serviceId);
        if (json === undefined) return false;
        scope.secrets.set(update.key, { version: update.entry, json });
      }
    } else {
      scope.secrets.delete(update.key);
    }
    return true;
  }

  /** The secret's snapshot JSON; undefined when it cannot be opened (and that was reported). */
  private openedJson(secret: SecretVersion, serviceId: string | null): string | undefined {
    let plaintext: string;
    try {
      plaintext = this.deps.open(secret, serviceId);
    } catch (error) {
      if (!this.deps.onUnopenable) throw error;
      this.deps.onUnopenable(secret, serviceId, error);
      return undefined;
    }
    return secretJson(secret, plaintext);
  }

  private render(
    serviceId: string | null,
    keyType: KeyType,
    revision: number,
    items: ReadonlyMap<ItemId, string>,
    flags: ReadonlyMap<string, FlagEntry>,
  ): View {
    const body = renderSnapshot(revision, keyType, items);
    return {
      id: viewId(this.projectId, serviceId, keyType),
      projectId: this.projectId,
      serviceId,
      keyType,
      revision,
      items,
      flags,
      body,
      etag: `"${this.deps.digest(body)}"`,
    };
  }
}

function emptyScope(): ScopeValues {
  return { configs: new Map(), flags: new Map(), secrets: new Map() };
}
