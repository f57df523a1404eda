/**
 * A view is what one kind of key sees of a project: project-level values overlaid by one
 * service's values (or project level only), public keys filtered to public configs, flags and
 * no secrets. Each view holds its items as wire JSON, its snapshot body and ETag, so sync
 * answers with no query and no serialization.
 */
import type { KeyType } from '../api-key-format.ts';
import type { FlagEntry, SecretVersion, ValueKind } from '../model.ts';

/** `config:db.pool`, `flag:checkout.v2`, `secret:stripe.api_key`. */
export type ItemId = `${ValueKind}:${string}`;

export interface View {
  /** `projectId|serviceId|keyType` (serviceId empty for project level). */
  id: string;
  projectId: string;
  serviceId: string | null;
  keyType: KeyType;
  /** The revision of the last change that altered this view. */
  revision: number;
  /** Each item's value as it appears in the snapshot, as JSON text. */
  items: ReadonlyMap<ItemId, string>;
  /** The flags this view sees, with their targeting (for AB evaluation). */
  flags: ReadonlyMap<string, FlagEntry>;
  /** The `/v1/sync` body. */
  body: string;
  /** Strong ETag, quotes included. */
  etag: string;
}

export function viewId(projectId: string, serviceId: string | null, keyType: KeyType): string {
  return `${projectId}|${serviceId ?? ''}|${keyType}`;
}

export function itemId(kind: ValueKind, key: string): ItemId {
  return `${kind}:${key}`;
}

export function parseItemId(id: ItemId): { kind: ValueKind; key: string } {
  const colon = id.indexOf(':');
  return { kind: id.slice(0, colon) as ValueKind, key: id.slice(colon + 1) };
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

const SECTIONS: Array<[ValueKind, string]> = [
  ['config', 'configs'],
  ['flag', 'flags'],
  ['secret', 'secrets'],
];

/** The `/v1/sync` body, keys sorted so that equal views give equal bytes. */
export function renderSnapshot(
  revision: number,
  keyType: KeyType,
  items: ReadonlyMap<ItemId, string>,
): string {
  const sorted = [...items.keys()].sort();
  let body = `{"revision":${revision},"key_type":"${keyType}"`;
  for (const [kind, section] of SECTIONS) {
    if (kind === 'secret' && keyType === 'pk') continue;
    const members: string[] = [];
    for (const id of sorted) {
      const { kind: itemKind, key } = parseItemId(id);
      if (itemKind === kind) members.push(`${JSON.stringify(key)}:${items.get(id)}`);
    }
    body += `,"${section}":{${members.join(',')}}`;
  }
  return body + '}';
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
