/**
 * The client's cache: an immutable snapshot of what its key sees. A sync builds a new one from
 * the `/v1/sync` body and stream changes derive a new one from the current; the client swaps the
 * reference, so a reader never sees half of an update. The three kinds of item are handled by
 * the same code, each with its own value check.
 */
import { offContract } from './errors.ts';

/** Any JSON value, as a config holds it. */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** The kinds of item a snapshot holds. */
export type ItemKind = 'config' | 'flag' | 'secret';

/** A secret as the cache holds it. */
export interface SecretEntry {
  readonly value: string;
  readonly type: 'text' | 'file';
  readonly version: number;
  /** The file name for file secrets, when the secret has one. */
  readonly fileName: string | undefined;
}

export interface Snapshot {
  readonly revision: number;
  readonly configs: ReadonlyMap<string, JsonValue>;
  readonly flags: ReadonlyMap<string, boolean>;
  readonly secrets: ReadonlyMap<string, SecretEntry>;
}

/** An item's value in the cache: a config's JSON, a flag's state, or a secret. */
type ItemValue = JsonValue | SecretEntry;

/** One item that changed, as a `change` event of the stream carries it. */
export interface ItemChange {
  revision: number;
  kind: ItemKind;
  key: string;
  op: 'upsert' | 'delete';
  /** The new value of an upsert. */
  value?: ItemValue;
}

/** Each kind's field, in a snapshot and in a `/v1/sync` body. */
const FIELDS = { config: 'configs', flag: 'flags', secret: 'secrets' } as const;
const KINDS = Object.keys(FIELDS) as ItemKind[];

/**
 * Checks a secret's fields and gives the cache's entry, or `undefined` when they do not fit.
 * Only the Node entry reads secrets: a browser's client (a public key) has no reader, so a
 * secret in its snapshot or stream is off the contract.
 */
export type SecretReader = (value: unknown) => SecretEntry | undefined;

/**
 * Reads a `/v1/sync` body (secrets with `readSecret`); a `ServiceError` when it is not the
 * contract's shape.
 */
export function parseSnapshot(body: unknown, readSecret?: SecretReader): Snapshot {
  if (!isObject(body) || !Number.isSafeInteger(body.revision)) {
    throw offContract('sync: revision');
  }
  const snapshot: Record<string, unknown> = { revision: body.revision };
  for (const kind of KINDS) {
    const field = FIELDS[kind];
    const items = body[field];
    const map = new Map<string, ItemValue>();
    // Public keys' snapshots have no secrets at all.
    if (items !== undefined || kind !== 'secret') {
      if (!isObject(items)) throw offContract(`sync: ${field}`);
      // for…in over JSON.parse output (plain objects, own keys only): no entry arrays for 10k items.
      for (const key in items) {
        const value = itemValue(kind, items[key], readSecret);
        if (value === undefined) throw offContract(`sync: ${kind} ${key}`);
        map.set(key, value);
      }
    }
    snapshot[field] = map;
  }
  return snapshot as unknown as Snapshot;
}

/**
 * Reads the `data:` of a `change` event; a `ServiceError` for any other shape (a `SyntaxError`
 * when it is not JSON).
 */
export function parseChange(data: string, readSecret?: SecretReader): ItemChange {
  const event: unknown = JSON.parse(data);
  const { revision, kind, key, op } = isObject(event) ? event : {};
  if (
    typeof revision !== 'number' ||
    !KINDS.includes(kind as ItemKind) ||
    typeof key !== 'string' ||
    (op !== 'upsert' && op !== 'delete')
  ) {
    throw offContract('stream: change');
  }
  const change: ItemChange = { revision, kind: kind as ItemKind, key, op };
  if (op === 'delete') return change;
  // A secret's event carries the secret's fields itself; the others carry a `value`.
  change.value = itemValue(
    change.kind,
    kind === 'secret' ? event : (event as { value?: unknown }).value,
    readSecret,
  );
  if (change.value === undefined) throw offContract(`stream: ${kind} ${key}`);
  return change;
}

/** The revision in the `data:` of a `resync` event, or `undefined` when it has none. */
export function resyncRevision(data: string): unknown {
  try {
    return (JSON.parse(data) as { revision?: unknown }).revision;
  } catch {
    return undefined;
  }
}

/**
 * A new snapshot with the `changes` applied (each map copied at most once), or `snapshot` itself
 * when each of them is older than it (a replay after a reconnect: the cache has them already).
 */
export function applyChanges(snapshot: Snapshot, changes: readonly ItemChange[]): Snapshot {
  const next: Record<string, unknown> = { ...snapshot };
  const copied = new Set<ItemKind>();
  let revision = snapshot.revision;
  for (const { kind, key, op, value, revision: changed } of changes) {
    if (changed < snapshot.revision) continue;
    revision = Math.max(revision, changed);
    const field = FIELDS[kind];
    if (!copied.has(kind)) {
      copied.add(kind);
      next[field] = new Map(snapshot[field] as ReadonlyMap<string, ItemValue>);
    }
    const map = next[field] as Map<string, ItemValue | undefined>;
    if (op === 'delete') map.delete(key);
    else map.set(key, value);
  }
  next.revision = revision;
  return copied.size > 0 ? (next as unknown as Snapshot) : snapshot;
}

/** One changed item, as change listeners see it (read the new value from the client). */
export interface Change {
  /** Which kind of item changed. */
  kind: ItemKind;
  /** The item's key. */
  key: string;
  /** `upsert`: added or changed; `delete`: gone from this key's view. */
  op: 'upsert' | 'delete';
}

/** The items that differ between two snapshots. */
export function diff(before: Snapshot, after: Snapshot): Change[] {
  const changes: Change[] = [];
  for (const kind of KINDS) {
    const was = before[FIELDS[kind]] as ReadonlyMap<string, ItemValue>;
    const now = after[FIELDS[kind]] as ReadonlyMap<string, ItemValue>;
    if (was === now) continue;
    for (const [key, value] of now) {
      // Values are never `undefined`: one that was not there differs.
      if (!jsonEqual(was.get(key), value)) changes.push({ kind, key, op: 'upsert' });
    }
    for (const key of was.keys()) {
      if (!now.has(key)) changes.push({ kind, key, op: 'delete' });
    }
  }
  return changes;
}

/**
 * Equality of JSON values (and of secrets, plain objects the cache builds). By their text: both
 * sides come from the same server's JSON, whose key order does not change between answers, and
 * a false "changed" would only call the listeners once more.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** An item's value checked for its kind, or `undefined` when it does not fit. */
function itemValue(
  kind: ItemKind,
  value: unknown,
  readSecret: SecretReader | undefined,
): ItemValue | undefined {
  if (kind === 'config') return value === undefined ? undefined : deepFreeze(value);
  if (kind === 'flag') return typeof value === 'boolean' ? value : undefined;
  return readSecret?.(value);
}

/** The Node entry's {@link SecretReader}. */
export const readSecret: SecretReader = (value) => {
  if (!isObject(value)) return undefined;
  const { value: plaintext, type, version, file_name: fileName } = value;
  const valid =
    typeof plaintext === 'string' &&
    (type === 'text' || type === 'file') &&
    typeof version === 'number' &&
    (fileName === undefined || typeof fileName === 'string');
  return valid ? { value: plaintext, type, version, fileName } : undefined;
};

/**
 * Config values are shared with callers: frozen, so no caller can change the cache. (Primitives
 * and `null` count as frozen.)
 */
function deepFreeze(value: unknown): JsonValue {
  if (!Object.isFrozen(value)) {
    for (const key in value as object) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value as JsonValue;
}

/** A JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
