/** The audit trail: per workspace, newest first, and no change-log entry. */
import { describe, expect, it } from 'vitest';
import { T0, seed, type Harness } from '../fixtures.ts';

export function describeAudit(h: Harness): void {
  describe('audit', () => {
    it('lists a workspace’s entries newest first, at most `limit`', async () => {
      const one = await seed(h.store, 'one');
      const two = await seed(h.store, 'two');
      const seq = await h.store.lastChangeSeq();
      for (let i = 1; i <= 5; i++) {
        h.clock.set(T0 + i * 10);
        await h.store.transaction(async (tx) => {
          await tx.appendAudit({
            workspaceId: one.workspace.id,
            actor: `actor${i}`,
            action: 'config.put',
            target: `shop k${i}`,
          });
          await tx.appendAudit({
            workspaceId: two.workspace.id,
            actor: 'other',
            action: 'x',
            target: 'y',
          });
        });
      }
      expect(await h.store.lastChangeSeq()).toBe(seq);

      const entries = await h.store.listAudit(one.workspace.id, 100);
      expect(entries.map(({ id: _id, ...rest }) => rest)).toStrictEqual(
        [5, 4, 3, 2, 1].map((i) => ({
          workspaceId: one.workspace.id,
          at: T0 + i * 10,
          actor: `actor${i}`,
          action: 'config.put',
          target: `shop k${i}`,
        })),
      );
      expect(entries.every((e) => typeof e.id === 'string' && e.id.length > 0)).toBe(true);
      expect(new Set(entries.map((e) => e.id)).size).toBe(5);

      const latest = await h.store.listAudit(one.workspace.id, 2);
      expect(latest).toStrictEqual(entries.slice(0, 2));
      expect(await h.store.listAudit(two.workspace.id, 100)).toHaveLength(5);
      expect(await h.store.listAudit('no-such-id', 100)).toStrictEqual([]);
      expect(await h.rawRows(`select id from audit`)).toHaveLength(10);
    });
  });
}
