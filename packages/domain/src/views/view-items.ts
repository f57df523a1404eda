/**
 * The items of one view as a persistent sorted map: one B+ tree per snapshot section, cloned in
 * O(1) and changed copy-on-write, so a change to one item of a 100,000-item view copies a few
 * tree nodes, not the view. Each item keeps its snapshot fragment (`"key":value`), so the body
 * is the fragments joined, with no JSON work; and a 120-bit hash, so the view's fingerprint
 * (the sum of its items' hashes) follows each change in O(1) and equals a full rebuild's.
 */
import type { KeyType } from '../api-key-format.ts';
import { SortedTree } from './sorted-tree.ts';
import type { ValueKind } from '../model.ts';
import type { Digest } from '../ports.ts';

/** `config:db.pool`, `flag:checkout.v2`, `secret:stripe.api_key`. */
export type ItemId = `${ValueKind}:${string}`;

export function itemId(kind: ValueKind, key: string): ItemId {
  return `${kind}:${key}`;
}

export function parseItemId(id: ItemId): { kind: ValueKind; key: string } {
  const colon = id.indexOf(':');
  return { kind: id.slice(0, colon) as ValueKind, key: id.slice(colon + 1) };
}

/** Hash lanes: 4 × 30 bits, small integers for V8, summed lane by lane modulo 2^30. */
const LANES = 4;
const MASK = 0x3fffffff;

/** One item as a view shows it; shared by every view that shows the same value. */
export class ViewItem {
  /** `"key":value`, the item's bytes in the snapshot. */
  readonly fragment: string;
  readonly hash: readonly number[];
  private readonly jsonStart: number;

  constructor(
    readonly kind: ValueKind,
    readonly key: string,
    json: string,
    digest: Digest,
  ) {
    const quoted = JSON.stringify(key);
    this.fragment = `${quoted}:${json}`;
    this.jsonStart = quoted.length + 1;
    this.hash = lanesOf(digest(`${kind}|${this.fragment}`));
  }

  /** The value as JSON text. */
  get json(): string {
    return this.fragment.slice(this.jsonStart);
  }
}

/** Folds a digest's text into the lanes (any text works; a SHA-256 one gives 120 good bits). */
function lanesOf(digest: string): number[] {
  const lanes = [0, 0, 0, 0];
  for (let i = 0; i < digest.length; i++) {
    const lane = i % LANES;
    lanes[lane] = (Math.imul(lanes[lane]!, 31) + digest.charCodeAt(i)) & MASK;
  }
  return lanes;
}

const SECTIONS: ReadonlyArray<[ValueKind, string]> = [
  ['config', 'configs'],
  ['flag', 'flags'],
  ['secret', 'secrets'],
];

/** An item to put (`item`) or to remove (`item` undefined). */
export interface ItemEdit {
  kind: ValueKind;
  key: string;
  item: ViewItem | undefined;
}

export class ViewItems implements ReadonlyMap<ItemId, string> {
  private constructor(
    private readonly sections: Record<ValueKind, SortedTree<ViewItem>>,
    private readonly sum: number[],
  ) {}

  static empty(): ViewItems {
    return new ViewItems(
      { config: new SortedTree(), flag: new SortedTree(), secret: new SortedTree() },
      [0, 0, 0, 0],
    );
  }

  /** A copy with `edits` applied; this one is left as it was. */
  with(edits: Iterable<ItemEdit>): ViewItems {
    const sections = { ...this.sections };
    const cloned = new Set<ValueKind>();
    const sum = [...this.sum];
    for (const { kind, key, item } of edits) {
      if (!cloned.has(kind)) {
        sections[kind] = sections[kind].clone();
        cloned.add(kind);
      }
      const tree = sections[kind];
      const before = tree.get(key);
      if (before) addLanes(sum, before.hash, -1);
      if (item) {
        tree.set(key, item);
        addLanes(sum, item.hash, 1);
      } else {
        tree.delete(key);
      }
    }
    return new ViewItems(sections, sum);
  }

  item(kind: ValueKind, key: string): ViewItem | undefined {
    return this.sections[kind].get(key);
  }

  /**
   * What identifies the content: the items' hash sum and count. Equal item sets give equal
   * fingerprints however they were reached (built whole or changed item by item).
   */
  get fingerprint(): string {
    return `${this.sum.join('.')}/${this.size}`;
  }

  /** The `/v1/sync` body: keys sorted per section; a public key's has no `secrets` member. */
  render(revision: number, keyType: KeyType): string {
    const parts: string[] = [`{"revision":${revision},"key_type":"${keyType}"`];
    for (const [kind, section] of SECTIONS) {
      if (kind === 'secret' && keyType === 'pk') continue;
      const fragments: string[] = [];
      this.sections[kind].forEachPair((_, item) => void fragments.push(item.fragment));
      parts.push(`,"${section}":{`, fragments.join(','), '}');
    }
    parts.push('}');
    return parts.join('');
  }

  // ReadonlyMap<ItemId, string>: each item's JSON by id, sections in order, keys sorted.

  get size(): number {
    return this.sections.config.size + this.sections.flag.size + this.sections.secret.size;
  }

  get(id: ItemId): string | undefined {
    const { kind, key } = parseItemId(id);
    return this.sections[kind]?.get(key)?.json;
  }

  has(id: ItemId): boolean {
    const { kind, key } = parseItemId(id);
    return this.sections[kind]?.has(key) ?? false;
  }

  *entries(): MapIterator<[ItemId, string]> {
    for (const [kind] of SECTIONS) {
      for (const [key, item] of this.sections[kind].entries()) yield [itemId(kind, key), item.json];
    }
  }

  *keys(): MapIterator<ItemId> {
    for (const [id] of this.entries()) yield id;
  }

  *values(): MapIterator<string> {
    for (const [, json] of this.entries()) yield json;
  }

  forEach(fn: (json: string, id: ItemId, map: ReadonlyMap<ItemId, string>) => void): void {
    for (const [id, json] of this.entries()) fn(json, id, this);
  }

  [Symbol.iterator](): MapIterator<[ItemId, string]> {
    return this.entries();
  }
}

function addLanes(sum: number[], hash: readonly number[], sign: 1 | -1): void {
  for (let i = 0; i < LANES; i++) sum[i] = (sum[i]! + sign * hash[i]! + MASK + 1) & MASK;
}
