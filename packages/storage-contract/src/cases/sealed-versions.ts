/** Root-key rotation support: listing every sealed version (with what its sealing binds) and replacing one in place. */
import { describe, expect, it } from 'vitest';
import { q, revisionOf, seed, type Harness } from '../fixtures.ts';

export function describeSealedVersions(h: Harness): void {
  describe('sealed versions (root-key rotation)', () => {
    it('lists every remaining version of every scope, and replaces one without a change', async () => {
      const s = await seed(h.store);
      await h.store.transaction(async (tx) => {
        for (const [scope, key, version] of [
          [s.projectScope, 'a', 1],
          [s.projectScope, 'a', 2],
          [s.serviceScope, 'b', 1],
        ] as const) {
          const file = key === 'b';
          await tx.insertSecretVersion(scope, key, {
            version,
            type: file ? 'file' : 'text',
            fileName: file ? 'b.pem' : null,
            sealed: `old-${key}-${version}`,
          });
        }
        await tx.deleteSecretVersion(s.projectScope, 'a', 1);
      });
      const listed = await h.store.listSealedVersions();
      expect(listed).toHaveLength(2);
      expect(listed).toEqual(
        expect.arrayContaining([
          {
            scope: s.projectScope,
            key: 'a',
            version: 2,
            type: 'text',
            fileName: null,
            sealed: 'old-a-2',
          },
          {
            scope: s.serviceScope,
            key: 'b',
            version: 1,
            type: 'file',
            fileName: 'b.pem',
            sealed: 'old-b-1',
          },
        ]),
      );
      const revision = await revisionOf(h.store, s.project.id);
      const changes = await h.store.lastChangeSeq();
      expect(
        await h.store.transaction((tx) =>
          tx.replaceSealed({ ...listed[0]!, sealed: 'new-sealing' }),
        ),
      ).toBe(true);
      expect(
        await h.store.transaction((tx) =>
          tx.replaceSealed({
            ...listed[0]!,
            scope: s.projectScope,
            key: 'a',
            version: 1,
            sealed: 'x',
          }),
        ),
      ).toBe(false);
      expect(await revisionOf(h.store, s.project.id)).toBe(revision);
      expect(await h.store.lastChangeSeq()).toBe(changes);
      const raw = await h.rawRows(
        `select sealed from secret_versions where sealed = ${q('new-sealing')}`,
      );
      expect(raw).toHaveLength(1);
    });
  });
}
