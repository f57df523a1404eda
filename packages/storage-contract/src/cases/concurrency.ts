/**
 * Concurrent writers, in this store and (when the adapter has one) a second store on the same
 * database: transactions behave as if run one after another, so no update is lost and no
 * revision or seq is duplicated or skipped.
 */
import { describe, expect, it } from 'vitest';
import { setSecret, type Store } from '@svc/domain';
import { fakeSealer, range, revisionOf, seed, type Harness } from '../fixtures.ts';

const WRITERS = 50;

export function describeConcurrency(h: Harness): void {
  const stores = async (): Promise<Store[]> => {
    const other = await h.another();
    return other ? [h.store, other] : [h.store];
  };

  describe('concurrent writers', () => {
    it(`loses no update among ${WRITERS} read-modify-write transactions started at once`, async () => {
      const s = await seed(h.store);
      const writers = await stores();
      const seqBefore = await h.store.lastChangeSeq();
      const changes = await Promise.all(
        range(1, WRITERS).map((i) =>
          writers[i % writers.length]!.transaction(async (tx) => {
            const counter = (await tx.listConfigs(s.projectScope)).find((c) => c.key === 'counter');
            const next = counter ? (JSON.parse(counter.valueJson) as number) + 1 : 1;
            return tx.putConfig(s.projectScope, {
              key: 'counter',
              valueJson: JSON.stringify(next),
              isPublic: false,
            });
          }),
        ),
      );
      const [counter] = await h.store.listConfigs(s.projectScope);
      expect(counter?.valueJson).toBe(String(WRITERS));
      expect(await revisionOf(h.store, s.project.id)).toBe(WRITERS);
      const revisions = changes.map((c) => c.revision ?? -1).sort((a, b) => a - b);
      expect(revisions).toStrictEqual(range(1, WRITERS));
      const seqs = changes.map((c) => c.seq).sort((a, b) => a - b);
      expect(seqs).toStrictEqual(range(seqBefore + 1, seqBefore + WRITERS));
      // The log agrees: seq order is revision order, with no gaps.
      const logged = await h.store.changesAfter(seqBefore, 1000);
      expect(logged.map((c) => c.seq)).toStrictEqual(seqs);
      expect(logged.map((c) => c.revision)).toStrictEqual(range(1, WRITERS));
    });

    it('keeps seqs gapless across projects and kinds of writes', async () => {
      const one = await seed(h.store, 'one');
      const two = await seed(h.store, 'two');
      const writers = await stores();
      const seqBefore = await h.store.lastChangeSeq();
      await Promise.all(
        range(1, WRITERS).map((i) => {
          const store = writers[i % writers.length]!;
          const target = i % 3 === 0 ? two : one;
          return store.transaction(async (tx) => {
            if (i % 5 === 0)
              await tx.insertService({ projectId: target.project.id, slug: `s${i}`, name: 'S' });
            await tx.putFlag(target.serviceScope, {
              key: `f${i}`,
              isActive: true,
              rules: [],
              rolloutPercentage: 50,
              salt: null,
            });
          });
        }),
      );
      const logged = await h.store.changesAfter(seqBefore, 1000);
      expect(logged.map((c) => c.seq)).toStrictEqual(
        range(seqBefore + 1, seqBefore + WRITERS + 10),
      );
      for (const s of [one, two]) {
        const revisions = logged.filter((c) => c.projectId === s.project.id && c.revision !== null);
        expect(revisions.map((c) => c.revision)).toStrictEqual(range(1, revisions.length));
        expect(await revisionOf(h.store, s.project.id)).toBe(revisions.length);
      }
    });

    it('gives concurrent secret writes distinct versions', async () => {
      const s = await seed(h.store);
      const writers = await stores();
      const results = await Promise.all(
        range(1, 20).map((i) =>
          writers[i % writers.length]!.transaction((tx) =>
            setSecret(tx, fakeSealer, s.projectScope, { key: 'k', value: `v${i}`, type: 'text' }),
          ),
        ),
      );
      expect(results.map((r) => r.version).sort((a, b) => a - b)).toStrictEqual(range(1, 20));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const versions = await h.store.listSecretVersions(s.projectScope, 'k');
      expect(versions.map((v) => v.version)).toStrictEqual(range(1, 20));
    });
  });
}
