/**
 * sorted-btree's B+ tree, the persistent sorted map behind views (O(1) `clone()`, copy-on-write).
 * It is CommonJS with its class under `exports.default`: Node's ESM loader (and esbuild's bundles)
 * hand over the exports object, vitest's loader the class itself; this takes either.
 */
import sortedBtree from 'sorted-btree';

type BTreeClass = typeof sortedBtree.default;

export const SortedTree: BTreeClass =
  'default' in sortedBtree ? sortedBtree.default : (sortedBtree as unknown as BTreeClass);

export type SortedTree<V> = InstanceType<typeof SortedTree<string, V>>;
