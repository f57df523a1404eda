/**
 * A view is what one kind of key sees of a project: project-level values overlaid by one
 * service's values (or project level only), public keys filtered to public configs, flags and
 * no secrets. Each view holds its items as snapshot fragments in persistent trees, and its
 * ETag, so a change costs what it touches and sync answers with no query and no serialization.
 */
import type { KeyType } from '../api-key-format.ts';
import { SortedTree } from './sorted-tree.ts';
import type { FlagEntry, SecretVersion } from '../model.ts';
import type { Digest } from '../ports.ts';
import type { ItemId, ViewItems } from './view-items.ts';

export {
  itemId,
  parseItemId,
  ViewItem,
  ViewItems,
  type ItemEdit,
  type ItemId,
} from './view-items.ts';

/**
 * A view's flags by key: a persistent sorted map too (cloned in O(1) when one changes). It is a
 * ReadonlyMap: sorted-btree sets `[Symbol.iterator]` (its `entries`), which its typings omit.
 */
export type FlagTree = SortedTree<FlagEntry> & ReadonlyMap<string, FlagEntry>;

export function emptyFlags(): FlagTree {
  return new SortedTree<string, FlagEntry>() as FlagTree;
}

export interface View {
  /** `projectId|serviceId|keyType` (serviceId empty for project level). */
  readonly id: string;
  readonly projectId: string;
  readonly serviceId: string | null;
  readonly keyType: KeyType;
  /** The revision of the last change that altered this view. */
  readonly revision: number;
  /** Each item's value as it appears in the snapshot, as JSON text (sections in order, keys sorted). */
  readonly items: ViewItems;
  /** The flags this view sees, with their targeting (for AB evaluation). */
  readonly flags: ReadonlyMap<string, FlagEntry>;
  /** The `/v1/sync` body, rendered from the items' fragments on first use, then kept. */
  readonly body: string;
  /**
   * Strong ETag, quotes included: a digest of the revision, the key type and the items'
   * fingerprint, so it follows a change in O(1) and equal views have equal ETags everywhere.
   */
  readonly etag: string;
}

export function viewId(projectId: string, serviceId: string | null, keyType: KeyType): string {
  return `${projectId}|${serviceId ?? ''}|${keyType}`;
}

/** A view as ProjectViews keeps it: its items and flags as persistent trees. */
export class SnapshotView implements View {
  readonly id: string;
  readonly etag: string;
  private rendered: string | undefined;

  constructor(
    readonly projectId: string,
    readonly serviceId: string | null,
    readonly keyType: KeyType,
    readonly revision: number,
    readonly items: ViewItems,
    readonly flags: FlagTree,
    digestOrEtag: Digest | { etag: string },
  ) {
    this.id = viewId(projectId, serviceId, keyType);
    this.etag =
      typeof digestOrEtag === 'function'
        ? `"${digestOrEtag(`${revision}|${keyType}|${items.fingerprint}`)}"`
        : digestOrEtag.etag;
  }

  get body(): string {
    return (this.rendered ??= this.items.render(this.revision, this.keyType));
  }

  /** The same items, revision and ETag with other flags (a targeting edit: same bytes). */
  withFlags(flags: FlagTree): SnapshotView {
    const { projectId, serviceId, keyType, revision, items, etag } = this;
    return new SnapshotView(projectId, serviceId, keyType, revision, items, flags, { etag });
  }
}

/** Opens a secret version to its plaintext. */
export type OpenSecret = (secret: SecretVersion, serviceId: string | null) => string;

/** A secret as the snapshot shows it: `{"value", "type", "version", "file_name"?}`. */
export function secretJson(secret: SecretVersion, plaintext: string): string {
  const fileName = secret.type === 'file' ? { file_name: secret.fileName ?? secret.key } : {};
  return JSON.stringify({
    value: plaintext,
    type: secret.type,
    version: secret.version,
    ...fileName,
  });
}

export interface ItemChange {
  id: ItemId;
  op: 'upsert' | 'delete';
  /** The new snapshot value (JSON text) for an upsert. */
  json?: string;
}

/** What changed between two item sets of one view. */
export function diffItems(
  before: ReadonlyMap<ItemId, string>,
  after: ReadonlyMap<ItemId, string>,
): ItemChange[] {
  const changes: ItemChange[] = [];
  for (const [id, json] of after) {
    if (before.get(id) !== json) changes.push({ id, op: 'upsert', json });
  }
  for (const id of before.keys()) {
    if (!after.has(id)) changes.push({ id, op: 'delete' });
  }
  return changes;
}
