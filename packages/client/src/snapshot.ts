/**
 * The client's cache: an immutable snapshot of what its key sees. A sync builds a new one from
 * the `/v1/sync` body and stream changes derive a new one from the current; the client swaps the
 * reference, so a reader never sees half of an update. The three kinds of item are handled by
 * the same code, each with its own value check.
 */
import { ServiceError } from './errors.ts';

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

/** Reads a `/v1/sync` body; a {@link ServiceError} when it is not the contract's shape. */
export function parseSnapshot(body: unknown): Snapshot {
  if (!isObject(body) || !Number.isSafeInteger(body.revision)) {
    throw offContract('sync: the snapshot', 'no integer revision');
  }
  const snapshot: Record<string, unknown> = { revision: body.revision };
  for (const kind of KINDS) {
    const field = FIELDS[kind];
    const items = body[field];
    const map = new Map<string, ItemValue>();
    // Public keys' snapshots have no secrets at all.
    if (items !== undefined || kind !== 'secret') {
      if (!isObject(items)) throw offContract('sync: the snapshot', `${field} is not an object`);
      // for…in over JSON.parse output (plain objects, own keys only): no entry arrays for 10k items.
      for (const key in items) {
        const value = itemValue(kind, items[key]);
        if (value === undefined)
          throw offContract('sync: the snapshot', `${kind} ${key} is malformed`);
        map.set(key, value);
      }
    }
    snapshot[field] = map;
  }
  return snapshot as unknown as Snapshot;
}

/** Reads the `data:` of a `change` event; a {@link ServiceError} for any other shape. */
export function parseChange(data: string): ItemChange {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    // Refused below, as any other shape.
  }
  const { revision, kind, key, op } = isObject(event) ? event : {};
  if (
    typeof revision !== 'number' ||
    typeof kind !== 'string' ||
    !Object.hasOwn(FIELDS, kind) ||
    typeof key !== 'string' ||
    (op !== 'upsert' && op !== 'delete')
  ) {
    throw offContract('stream: a change event', 'no revision, kind, key or op');
  }
  const change: ItemChange = { revision, kind: kind as ItemKind, key, op };
  if (op === 'delete') return change;
  // A secret's event carries the secret's fields itself; the others carry a `value`.
  change.value = itemValue(
    change.kind,
    kind === 'secret' ? event : (event as { value?: unknown }).value,
  );
  if (change.value === undefined)
    throw offContract('stream: a change event', `${kind} ${key} is malformed`);
  return change;
}

/** A new snapshot with `changes` applied (each map copied at most once). */
export function applyChanges(snapshot: Snapshot, changes: readonly ItemChange[]): Snapshot {
  const next: Record<string, unknown> = { ...snapshot };
  const copied = new Set<ItemKind>();
  let revision = snapshot.revision;
  for (const { kind, key, op, value, revision: changed } of changes) {
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
  return next as unknown as Snapshot;
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
      if (!was.has(key) || !jsonEqual(was.get(key)!, value))
        changes.push({ kind, key, op: 'upsert' });
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
function itemValue(kind: ItemKind, value: unknown): ItemValue | undefined {
  if (kind === 'config') return value === undefined ? undefined : deepFreeze(value);
  if (kind === 'flag') return typeof value === 'boolean' ? value : undefined;
  if (!isObject(value)) return undefined;
  const { value: plaintext, type, version, file_name: fileName } = value;
  const valid =
    typeof plaintext === 'string' &&
    (type === 'text' || type === 'file') &&
    typeof version === 'number' &&
    (fileName === undefined || typeof fileName === 'string');
  return valid ? { value: plaintext, type, version, fileName } : undefined;
}

/** Config values are shared with callers: frozen, so no caller can change the cache. */
function deepFreeze(value: unknown): JsonValue {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value as JsonValue;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function offContract(what: string, reason: string): ServiceError {
  return new ServiceError(`${what} is off the contract: ${reason}`);
}
