/** Transactions: all or nothing, reads see their own writes, others see only commits. */
import { describe, expect, it } from 'vitest';
import { ConflictError } from '@svc/domain';
import { int, revisionOf, seed, type Harness } from '../fixtures.ts';

export function describeTransactions(h: Harness): void {
  const counts = async () => {
    const count = async (table: string) =>
      int((await h.rawRows(`select count(*) as n from ${table}`))[0]?.n);
    const counter = await h.rawRows(`select value from counters where name = 'change_seq'`);
    return {
      workspaces: await count('workspaces'),
      services: await count('services'),
      apiKeys: await count('api_keys'),
      configs: await count('configs'),
      flags: await count('flags'),
      secretVersions: await count('secret_versions'),
      changes: await count('changes'),
      audit: await count('audit'),
      changeSeq: int(counter[0]?.value),
    };
  };

  describe('transactions', () => {
    it("returns the function's result", async () => {
      expect(await h.store.transaction(() => Promise.resolve(42))).toBe(42);
    });

    it('sees its own writes before they commit', async () => {
      const s = await seed(h.store);
      await h.store.transaction(async (tx) => {
        await tx.putConfig(s.projectScope, { key: 'a', valueJson: '1', isPublic: false });
        expect((await tx.listConfigs(s.projectScope)).map((c) => c.key)).toStrictEqual(['a']);
        expect((await tx.findProjectById(s.project.id))?.revision).toBe(1);
        expect(await tx.lastChangeSeq()).toBe(4);
        const ws = await tx.insertWorkspace({ slug: 'other', name: 'Other' });
        expect(await tx.findWorkspaceBySlug('other')).toStrictEqual(ws);
      });
    });

    it('writes nothing at all when the function throws', async () => {
      const s = await seed(h.store);
      const before = await counts();
      const failure = new Error('boom');
      await expect(
        h.store.transaction(async (tx) => {
          await tx.insertWorkspace({ slug: 'ghost', name: 'Ghost' });
          await tx.insertService({ projectId: s.project.id, slug: 'ghost', name: 'Ghost' });
          await tx.insertApiKey({
            workspaceId: s.workspace.id,
            projectId: s.project.id,
            serviceId: null,
            kind: 'public',
            name: 'k',
            prefix: 'svp_abcdef',
            hash: 'ghost-hash',
          });
          await tx.putConfig(s.projectScope, { key: 'a', valueJson: '1', isPublic: false });
          await tx.putFlag(s.serviceScope, {
            key: 'f',
            isActive: true,
            rules: [],
            rolloutPercentage: 1,
            salt: null,
          });
          await tx.insertSecretVersion(s.projectScope, 'x', {
            version: 1,
            type: 'text',
            fileName: null,
            sealed: 'x',
          });
          await tx.appendAudit({
            workspaceId: s.workspace.id,
            actor: 'a',
            action: 'b',
            target: 'c',
          });
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await counts()).toStrictEqual(before);
      expect(await revisionOf(h.store, s.project.id)).toBe(0);
      expect(await h.store.lastChangeSeq()).toBe(before.changeSeq);
      expect(await h.store.findWorkspaceBySlug('ghost')).toBeUndefined();
      expect(await h.store.findApiKeyByHash('ghost-hash')).toBeUndefined();
      expect(await h.store.listConfigs(s.projectScope)).toStrictEqual([]);
    });

    it('rolls back earlier writes when a later write conflicts, and carries on after', async () => {
      await h.store.transaction((tx) => tx.insertWorkspace({ slug: 'taken', name: 'T' }));
      const before = await counts();
      await expect(
        h.store.transaction(async (tx) => {
          await tx.insertWorkspace({ slug: 'fresh', name: 'F' });
          await tx.insertWorkspace({ slug: 'taken', name: 'T2' });
        }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await counts()).toStrictEqual(before);
      expect(await h.store.findWorkspaceBySlug('fresh')).toBeUndefined();

      await h.store.transaction((tx) => tx.insertWorkspace({ slug: 'fresh', name: 'F' }));
      const changes = await h.store.changesAfter(0, 10);
      expect(changes.map((c) => [c.seq, c.key])).toStrictEqual([
        [1, 'taken'],
        [2, 'fresh'],
      ]);
    });

    it('hides uncommitted writes from another store', async () => {
      const other = await h.another();
      if (!other) return;
      const s = await seed(h.store);
      let release = (): void => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let written = (): void => {};
      const wrote = new Promise<void>((resolve) => (written = resolve));
      const tx = h.store.transaction(async (t) => {
        await t.putConfig(s.projectScope, { key: 'a', valueJson: '1', isPublic: false });
        written();
        await held;
      });
      await wrote;
      expect(await other.listConfigs(s.projectScope)).toStrictEqual([]);
      expect((await other.findProjectById(s.project.id))?.revision).toBe(0);
      release();
      await tx;
      expect((await other.listConfigs(s.projectScope)).map((c) => c.key)).toStrictEqual(['a']);
    });
  });
}
