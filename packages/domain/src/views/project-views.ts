/**
 * The views of one project, kept current one item at a time. A change replaces one value of one
 * scope; only the views that can see that scope are touched, only the changed items are
 * recomputed, and a view's items are persistent trees changed copy-on-write: a change costs the
 * same in a project of 100 items as in one of 100,000. Each value is made into its snapshot
 * fragment once (shared by every view that shows it); secrets are opened once per version.
 */
import type { KeyType } from '../api-key-format.ts';
import type { ConfigEntry, FlagEntry, SecretVersion, ValueKind } from '../model.ts';
import type { Digest, ProjectState } from '../ports.ts';
import {
  emptyFlags,
  itemId,
  parseItemId,
  secretJson,
  SnapshotView,
  ViewItem,
  ViewItems,
  viewId,
  type FlagTree,
  type ItemChange,
  type ItemEdit,
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

/** A value of one scope with the item views show for it (made once, shared). */
interface Held<T> {
  entry: T;
  item: ViewItem;
}

/** One scope's values: the project level or one service's. */
interface ScopeValues {
  configs: Map<string, Held<ConfigEntry>>;
  flags: Map<string, Held<FlagEntry>>;
  /** The current version of each secret (opened once). */
  secrets: Map<string, Held<SecretVersion>>;
}

const KEY_TYPES: KeyType[] = ['sk', 'pk'];
const PROJECT_LEVEL = '';

/** What the views of one project need: how to open a secret and how to digest a text. */
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
  private readonly views = new Map<string, SnapshotView>();

  private constructor(
    private readonly projectId: string,
    private readonly deps: ProjectViewsDeps,
  ) {}

  /**
   * Every view of the project, built from its whole state: the project level's from all its
   * values, each service's from the project level's trees with the service's own keys redone.
   */
  static build(state: ProjectState, deps: ProjectViewsDeps): ProjectViews {
    const pv = new ProjectViews(state.project.id, deps);
    pv.putScope(null, state);
    for (const service of state.services) pv.putScope(service.id, state);
    const revision = state.project.revision;
    for (const keyType of KEY_TYPES) {
      const base = pv.derive(null, keyType, ViewItems.empty(), emptyFlags());
      pv.putView(new SnapshotView(pv.projectId, null, keyType, revision, ...base, deps.digest));
      for (const service of state.services) {
        const own = pv.derive(service.id, keyType, ...base);
        pv.putView(
          new SnapshotView(pv.projectId, service.id, keyType, revision, ...own, deps.digest),
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
    return KEY_TYPES.map((keyType) => {
      // Its content is the project level's: so are its items, flags, revision and ETag.
      const base = this.views.get(viewId(this.projectId, null, keyType))!;
      const { revision, items, flags, etag } = base;
      const view = new SnapshotView(this.projectId, serviceId, keyType, revision, items, flags, {
        etag,
      });
      return this.putView(view);
    });
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

  private putView(view: SnapshotView): SnapshotView {
    this.views.set(view.id, view);
    return view;
  }

  /** The view with the touched items recomputed; undefined when nothing about it changed. */
  private recompute(
    previous: SnapshotView,
    itemRevisions: Map<ItemId, number>,
  ): { view: SnapshotView; changes: ItemChange[] } | undefined {
    const { serviceId, keyType } = previous;
    let flags: FlagTree | undefined;
    let revision = previous.revision;
    const edits: ItemEdit[] = [];
    const changes: ItemChange[] = [];
    for (const [id, itemRevision] of itemRevisions) {
      const { kind, key } = parseItemId(id);
      if (kind === 'flag') {
        // Targeting edits change no item but must reach evaluate-ab.
        const flag = this.effective(serviceId, (s) => s.flags.get(key))?.entry;
        if (flag !== previous.flags.get(key)) {
          flags ??= previous.flags.clone();
          if (flag) flags.set(key, flag);
          else flags.delete(key);
        }
      }
      const item = this.itemOf(serviceId, keyType, kind, key);
      // Same bytes (or absent before and after): nothing for this view's clients.
      if (item?.fragment === previous.items.item(kind, key)?.fragment) continue;
      edits.push({ kind, key, item });
      changes.push(item ? { id, op: 'upsert', json: item.json } : { id, op: 'delete' });
      revision = Math.max(revision, itemRevision);
    }
    if (edits.length > 0) {
      const items = previous.items.with(edits);
      const view = new SnapshotView(
        this.projectId,
        serviceId,
        keyType,
        revision,
        items,
        flags ?? previous.flags,
        this.deps.digest,
      );
      return { view, changes };
    }
    // Same items, same bytes and ETag (clients keep their 304); only the targeting changed.
    return flags ? { view: previous.withFlags(flags), changes } : undefined;
  }

  /**
   * The items and flags of a view of `serviceId` (or the project level), from `items` and
   * `flags` (the project level's, or empty) with every key of that scope redone.
   */
  private derive(
    serviceId: string | null,
    keyType: KeyType,
    items: ViewItems,
    flags: FlagTree,
  ): [ViewItems, FlagTree] {
    const scope = this.scopes.get(serviceId ?? PROJECT_LEVEL)!;
    const edits: ItemEdit[] = [];
    const redo = (kind: ValueKind, key: string) => {
      const item = this.itemOf(serviceId, keyType, kind, key);
      if (item !== items.item(kind, key)) edits.push({ kind, key, item });
    };
    for (const key of scope.configs.keys()) redo('config', key);
    for (const key of scope.secrets.keys()) redo('secret', key);
    if (scope.flags.size > 0) flags = flags.clone();
    for (const [key, held] of scope.flags) {
      redo('flag', key);
      flags.set(key, held.entry);
    }
    return [edits.length > 0 ? items.with(edits) : items, flags];
  }

  /**
   * What a key of `keyType` bound to `serviceId` (or none) sees of one item: the service's
   * value overrides the project's; public keys see public configs (the filter applies after
   * the overlay, so a private override hides a public value), every flag and no secret.
   */
  private itemOf(
    serviceId: string | null,
    keyType: KeyType,
    kind: ValueKind,
    key: string,
  ): ViewItem | undefined {
    if (kind === 'config') {
      const config = this.effective(serviceId, (s) => s.configs.get(key));
      if (!config || (keyType === 'pk' && !config.entry.isPublic)) return undefined;
      return config.item;
    }
    if (kind === 'flag') return this.effective(serviceId, (s) => s.flags.get(key))?.item;
    if (keyType === 'pk') return undefined;
    return this.effective(serviceId, (s) => s.secrets.get(key))?.item;
  }

  private effective<T>(
    serviceId: string | null,
    pick: (scope: ScopeValues) => T | undefined,
  ): T | undefined {
    const service = serviceId === null ? undefined : this.scopes.get(serviceId);
    return (service && pick(service)) ?? pick(this.scopes.get(PROJECT_LEVEL)!);
  }

  private serviceIds(): Array<string | null> {
    return [...this.scopes.keys()].map((id) => (id === PROJECT_LEVEL ? null : id));
  }

  private putScope(serviceId: string | null, state: ProjectState): void {
    const scopeKey = serviceId ?? PROJECT_LEVEL;
    const scope = emptyScope();
    for (const c of state.configs.get(scopeKey) ?? []) scope.configs.set(c.key, this.config(c));
    for (const f of state.flags.get(scopeKey) ?? []) scope.flags.set(f.key, this.flag(f));
    for (const s of state.secrets.get(scopeKey) ?? []) {
      const json = this.openedJson(s, serviceId);
      if (json !== undefined) scope.secrets.set(s.key, this.held('secret', s.key, s, json));
    }
    this.scopes.set(scopeKey, scope);
  }

  /** Takes the update into the scope; false when it is skipped (a secret that cannot be opened). */
  private putItem(scope: ScopeValues, update: ItemUpdate): boolean {
    if (update.kind === 'config') {
      if (update.entry) scope.configs.set(update.key, this.config(update.entry));
      else scope.configs.delete(update.key);
    } else if (update.kind === 'flag') {
      if (update.entry) scope.flags.set(update.key, this.flag(update.entry));
      else scope.flags.delete(update.key);
    } else if (update.entry) {
      const current = scope.secrets.get(update.key);
      // The same version opens to the same value: keep it rather than open it again.
      if (current?.entry.version !== update.entry.version) {
        const json = this.openedJson(update.entry, update.serviceId);
        if (json === undefined) return false;
        scope.secrets.set(update.key, this.held('secret', update.key, update.entry, json));
      }
    } else {
      scope.secrets.delete(update.key);
    }
    return true;
  }

  private config(entry: ConfigEntry): Held<ConfigEntry> {
    return this.held('config', entry.key, entry, entry.valueJson);
  }

  private flag(entry: FlagEntry): Held<FlagEntry> {
    return this.held('flag', entry.key, entry, entry.isActive ? 'true' : 'false');
  }

  private held<T>(kind: ValueKind, key: string, entry: T, json: string): Held<T> {
    return { entry, item: new ViewItem(kind, key, json, this.deps.digest) };
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
}

function emptyScope(): ScopeValues {
  return { configs: new Map(), flags: new Map(), secrets: new Map() };
}
