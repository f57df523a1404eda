/**
 * The client's cache: an immutable snapshot of what its key sees. A sync builds a new one from
 * the `/v1/sync` body and stream changes derive a new one from the current; the client swaps the
 * reference, so a reader never sees half of an update.
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

/** One item that changed, as a `change` event of the stream carries it. */
export interface ItemChange {
  revision: number;
  kind: ItemKind;
  key: string;
  op: 'upsert' | 'delete';
  /** Config value, flag state, or for secrets the secret itself. */
  value?: JsonValue;
  secret?: SecretEntry;
}

/** Reads a `/v1/sync` body; a {@link ServiceError} when it is not the contract's shape. */
export function parseSnapshot(body: unknown): Snapshot {
  if (!isObject(body)) throw invalid('the body is not an object');
  const { revision, configs, flags, secrets } = body;
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision)) {
    throw invalid('revision is not an integer');
  }
  if (!isObject(configs)) throw invalid('configs is not an object');
  if (!isObject(flags)) throw invalid('flags is not an object');
  if (secrets !== undefined && !isObject(secrets)) throw invalid('secrets is not an object');
  // for…in over JSON.parse output (plain objects, own keys only): no entry arrays for 10k items.
  const configMap = new Map<string, JsonValue>();
  for (const key in configs) configMap.set(key, deepFreeze(configs[key]));
  const flagMap = new Map<string, boolean>();
  for (const key in flags) {
    const value = flags[key];
    if (typeof value !== 'boolean') throw invalid(`flag ${key} is not a boolean`);
    flagMap.set(key, value);
  }
  const secretMap = new Map<string, SecretEntry>();
  if (secrets !== undefined) {
    for (const key in secrets) secretMap.set(key, parseSecret(key, secrets[key]));
  }
  return { revision, configs: configMap, flags: flagMap, secrets: secretMap };
}

/** Reads the `data:` of a `change` event; a {@link ServiceError} for any other shape. */
export function parseChange(data: string): ItemChange {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch (error) {
    throw new ServiceError('stream: a change event is not JSON', { cause: error });
  }
  if (!isObject(event)) throw invalidChange('not an object');
  const { revision, kind, key, op } = event;
  if (typeof revision !== 'number') throw invalidChange('revision is not a number');
  if (kind !== 'config' && kind !== 'flag' && kind !== 'secret') throw invalidChange('bad kind');
  if (typeof key !== 'string') throw invalidChange('key is not a string');
  if (op === 'delete') return { revision, kind, key, op };
  if (op !== 'upsert') throw invalidChange('bad op');
  if (kind === 'secret') return { revision, kind, key, op, secret: parseSecret(key, event) };
  if (!('value' in event)) throw invalidChange('an upsert without a value');
  const value = event.value as JsonValue;
  if (kind === 'flag' && typeof value !== 'boolean') throw invalidChange('flag is not a boolean');
  return { revision, kind, key, op, value: deepFreeze(value) };
}

/** A new snapshot with `changes` applied (each map copied at most once). */
export function applyChanges(snapshot: Snapshot, changes: readonly ItemChange[]): Snapshot {
  let configs: Map<string, JsonValue> | undefined;
  let flags: Map<string, boolean> | undefined;
  let secrets: Map<string, SecretEntry> | undefined;
  let revision = snapshot.revision;
  for (const change of changes) {
    revision = Math.max(revision, change.revision);
    if (change.kind === 'config') {
      configs ??= new Map(snapshot.configs);
      if (change.op === 'delete') configs.delete(change.key);
      else configs.set(change.key, change.value as JsonValue);
    } else if (change.kind === 'flag') {
      flags ??= new Map(snapshot.flags);
      if (change.op === 'delete') flags.delete(change.key);
      else flags.set(change.key, change.value as boolean);
    } else {
      secrets ??= new Map(snapshot.secrets);
      if (change.op === 'delete') secrets.delete(change.key);
      else secrets.set(change.key, change.secret!);
    }
  }
  return {
    revision,
    configs: configs ?? snapshot.configs,
    flags: flags ?? snapshot.flags,
    secrets: secrets ?? snapshot.secrets,
  };
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
  diffMaps('config', before.configs, after.configs, jsonEqual, changes);
  diffMaps('flag', before.flags, after.flags, Object.is, changes);
  diffMaps('secret', before.secrets, after.secrets, secretEqual, changes);
  return changes;
}

function diffMaps<T>(
  kind: ItemKind,
  before: ReadonlyMap<string, T>,
  after: ReadonlyMap<string, T>,
  equal: (a: T, b: T) => boolean,
  out: Change[],
): void {
  if (before === after) return;
  for (const [key, value] of after) {
    const old = before.get(key);
    if (old === undefined ? !before.has(key) : !equal(old, value)) {
      out.push({ kind, key, op: 'upsert' });
    }
  }
  for (const key of before.keys()) {
    if (!after.has(key)) out.push({ kind, key, op: 'delete' });
  }
}

export function secretEqual(a: SecretEntry, b: SecretEntry): boolean {
  return (
    a.value === b.value && a.type === b.type && a.version === b.version && a.fileName === b.fileName
  );
}

function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]!));
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k]!, b[k]!));
}

function parseSecret(key: string, value: unknown): SecretEntry {
  if (!isObject(value)) throw invalid(`secret ${key} is not an object`);
  const { value: plaintext, type, version, file_name: fileName } = value;
  if (typeof plaintext !== 'string') throw invalid(`secret ${key} has no string value`);
  if (type !== 'text' && type !== 'file') throw invalid(`secret ${key} has an unknown type`);
  if (typeof version !== 'number') throw invalid(`secret ${key} has no version`);
  if (fileName !== undefined && typeof fileName !== 'string') {
    throw invalid(`secret ${key} has a bad file_name`);
  }
  return { value: plaintext, type, version, fileName };
}

/** Config values are shared with callers: frozen, so no caller can change the cache. */
function deepFreeze(value: unknown): JsonValue {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    if (Array.isArray(value)) {
      for (const child of value) deepFreeze(child);
    } else {
      for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
    }
    Object.freeze(value);
  }
  return value as JsonValue;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(reason: string): ServiceError {
  return new ServiceError(`sync: the snapshot does not follow the contract: ${reason}`);
}

function invalidChange(reason: string): ServiceError {
  return new ServiceError(`stream: a change event does not follow the contract: ${reason}`);
}
