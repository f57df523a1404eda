/**
 * The change log: every value write bumps its project's revision by exactly one and logs it;
 * other writes log a change without a revision; seqs count up by one, with no gaps.
 */
import { describe, expect, it } from 'vitest';
import type { Change, ChangeKind, ChangeOp, Scope, StoreWriter } from '@svc/domain';
import { T0, int, range, revisionOf, seed, type Harness } from '../fixtures.ts';

interface ValueWrite {
  name: string;
  scope: 'project' | 'service';
  kind: ChangeKind;
  key: string;
  op: ChangeOp;
  run: (tx: StoreWriter, scope: Scope) => Promise<Change | undefined>;
}

const secret = (version: number) => ({
  version,
  type: 'text' as const,
  fileName: null,
  sealed: `s${version}`,
});

/** In order: each one has something to act on. */
const VALUE_WRITES: ValueWrite[] = [
  {
    name: 'putConfig',
    scope: 'project',
    kind: 'config',
    key: 'c',
    op: 'upsert',
    run: (tx, s) => tx.putConfig(s, { key: 'c', valueJson: '1', isPublic: false }),
  },
  {
    name: 'putConfig again',
    scope: 'project',
    kind: 'config',
    key: 'c',
    op: 'upsert',
    run: (tx, s) => tx.putConfig(s, { key: 'c', valueJson: '2', isPublic: false }),
  },
  {
    name: 'putConfig (service)',
    scope: 'service',
    kind: 'config',
    key: 'c',
    op: 'upsert',
    run: (tx, s) => tx.putConfig(s, { key: 'c', valueJson: '3', isPublic: true }),
  },
  {
    name: 'putFlag',
    scope: 'service',
    kind: 'flag',
    key: 'f',
    op: 'upsert',
    run: (tx, s) =>
      tx.putFlag(s, { key: 'f', isActive: true, rules: [], rolloutPercentage: 5, salt: null }),
  },
  {
    name: 'insertSecretVersion',
    scope: 'project',
    kind: 'secret',
    key: 's',
    op: 'upsert',
    run: (tx, s) => tx.insertSecretVersion(s, 's', secret(1)),
  },
  {
    name: 'insertSecretVersion 2',
    scope: 'project',
    kind: 'secret',
    key: 's',
    op: 'upsert',
    run: (tx, s) => tx.insertSecretVersion(s, 's', secret(2)),
  },
  {
    name: 'deleteSecretVersion (one left)',
    scope: 'project',
    kind: 'secret',
    key: 's',
    op: 'upsert',
    run: (tx, s) => tx.deleteSecretVersion(s, 's', 2),
  },
  {
    name: 'deleteSecretVersion (last)',
    scope: 'project',
    kind: 'secret',
    key: 's',
    op: 'delete',
    run: (tx, s) => tx.deleteSecretVersion(s, 's', 1),
  },
  {
    name: 'insertSecretVersion (service)',
    scope: 'service',
    kind: 'secret',
    key: 's',
    op: 'upsert',
    run: (tx, s) => tx.insertSecretVersion(s, 's', secret(1)),
  },
  {
    name: 'deleteSecret',
    scope: 'service',
    kind: 'secret',
    key: 's',
    op: 'delete',
    run: (tx, s) => tx.deleteSecret(s, 's'),
  },
  {
    name: 'deleteFlag',
    scope: 'service',
    kind: 'flag',
    key: 'f',
    op: 'delete',
    run: (tx, s) => tx.deleteFlag(s, 'f'),
  },
  {
    name: 'deleteConfig',
    scope: 'project',
    kind: 'config',
    key: 'c',
    op: 'delete',
    run: (tx, s) => tx.deleteConfig(s, 'c'),
  },
];

export function describeChangeLog(h: Harness): void {
  describe('change log', () => {
    it('starts empty', async () => {
      expect(await h.store.lastChangeSeq()).toBe(0);
      expect(await h.store.changesAfter(0, 100)).toStrictEqual([]);
    });

    it('bumps the revision by exactly one per value write and logs each write', async () => {
      const s = await seed(h.store);
      for (const [i, write] of VALUE_WRITES.entries()) {
        const scope = write.scope === 'project' ? s.projectScope : s.serviceScope;
        const revision = await revisionOf(h.store, s.project.id);
        const seq = await h.store.lastChangeSeq();
        h.clock.set(T0 + 1000 + i);
        const change = await h.store.transaction((tx) => write.run(tx, scope));
        const expected: Change = {
          seq: seq + 1,
          workspaceId: s.workspace.id,
          projectId: s.project.id,
          serviceId: scope.serviceId,
          revision: revision + 1,
          kind: write.kind,
          key: write.key,
          op: write.op,
          at: T0 + 1000 + i,
        };
        expect(change, write.name).toStrictEqual(expected);
        expect(await revisionOf(h.store, s.project.id), write.name).toBe(revision + 1);
        expect(await h.store.lastChangeSeq(), write.name).toBe(seq + 1);
        expect(await h.store.changesAfter(seq, 10), write.name).toStrictEqual([expected]);
      }
      expect(await revisionOf(h.store, s.project.id)).toBe(VALUE_WRITES.length);
    });

    it('counts one revision per write, also with several writes in one transaction', async () => {
      const s = await seed(h.store);
      const changes = await h.store.transaction(async (tx) => [
        await tx.putConfig(s.projectScope, { key: 'a', valueJson: '1', isPublic: false }),
        await tx.putConfig(s.projectScope, { key: 'b', valueJson: '1', isPublic: false }),
        await tx.insertSecretVersion(s.serviceScope, 'c', secret(1)),
      ]);
      expect(changes.map((c) => c.revision)).toStrictEqual([1, 2, 3]);
      expect(await revisionOf(h.store, s.project.id)).toBe(3);
      const rows = await h.rawRows(`select revision from projects where slug = 'shop'`);
      expect(int(rows[0]?.revision)).toBe(3);
    });

    it('keeps one revision counter per project', async () => {
      const one = await seed(h.store, 'one');
      const two = await seed(h.store, 'two');
      await h.store.transaction(async (tx) => {
        await tx.putConfig(one.projectScope, { key: 'a', valueJson: '1', isPublic: false });
        await tx.putConfig(one.projectScope, { key: 'b', valueJson: '1', isPublic: false });
        await tx.putFlag(two.serviceScope, {
          key: 'f',
          isActive: true,
          rules: [],
          rolloutPercentage: 100,
          salt: null,
        });
      });
      expect(await revisionOf(h.store, one.project.id)).toBe(2);
      expect(await revisionOf(h.store, two.project.id)).toBe(1);
    });

    it('logs the other writes without a revision and without touching revisions', async () => {
      h.clock.set(T0 + 500);
      const ws = await h.store.transaction((tx) => tx.insertWorkspace({ slug: 'acme', name: 'A' }));
      await h.store.transaction((tx) => tx.updateWorkspace(ws.id, { billingStatus: 'overdue' }));
      const project = await h.store.transaction((tx) =>
        tx.insertProject({ workspaceId: ws.id, slug: 'shop', name: 'Shop' }),
      );
      await h.store.transaction((tx) =>
        tx.putConfig(
          { projectId: project.id, serviceId: null },
          { key: 'a', valueJson: '1', isPublic: true },
        ),
      );
      const seqAfterValue = await h.store.lastChangeSeq();
      await h.store.transaction((tx) => tx.updateProject(project.id, { abTesting: true }));
      const service = await h.store.transaction((tx) =>
        tx.insertService({ projectId: project.id, slug: 'api', name: 'API' }),
      );
      const key = await h.store.transaction((tx) =>
        tx.insertApiKey({
          workspaceId: ws.id,
          projectId: project.id,
          serviceId: service.id,
          kind: 'secret',
          name: 'k',
          prefix: 'svs_abcdef',
          hash: 'h',
        }),
      );
      await h.store.transaction(async (tx) => {
        await tx.touchApiKeys([key.id], T0 + 600);
        await tx.appendAudit({ workspaceId: ws.id, actor: 'admin', action: 'x', target: 'y' });
      });
      await h.store.transaction((tx) => tx.revokeApiKey(project.id, key.id));
      expect(await revisionOf(h.store, project.id)).toBe(1);

      const base = { workspaceId: ws.id, revision: null, op: 'upsert', at: T0 + 500 };
      expect(await h.store.changesAfter(0, 100)).toStrictEqual([
        { ...base, seq: 1, projectId: null, serviceId: null, kind: 'workspace', key: 'acme' },
        { ...base, seq: 2, projectId: null, serviceId: null, kind: 'workspace', key: 'acme' },
        { ...base, seq: 3, projectId: project.id, serviceId: null, kind: 'project', key: 'shop' },
        {
          ...base,
          seq: 4,
          projectId: project.id,
          serviceId: null,
          kind: 'config',
          key: 'a',
          revision: 1,
        },
        { ...base, seq: 5, projectId: project.id, serviceId: null, kind: 'project', key: 'shop' },
        {
          ...base,
          seq: 6,
          projectId: project.id,
          serviceId: service.id,
          kind: 'service',
          key: 'api',
        },
        { ...base, seq: 7, projectId: project.id, serviceId: service.id, kind: 'key', key: key.id },
        {
          ...base,
          seq: 8,
          projectId: project.id,
          serviceId: service.id,
          kind: 'key',
          key: key.id,
          op: 'delete',
        },
      ]);
      expect(seqAfterValue).toBe(4);
      expect(await h.store.lastChangeSeq()).toBe(8);
    });

    it('reads the log after a seq, in order, at most `limit` rows', async () => {
      const s = await seed(h.store);
      await h.store.transaction(async (tx) => {
        for (let i = 0; i < 10; i++) {
          await tx.putConfig(s.projectScope, { key: `k${i}`, valueJson: '1', isPublic: false });
        }
      });
      const all = await h.store.changesAfter(0, 1000);
      const last = await h.store.lastChangeSeq();
      expect(all.map((c) => c.seq)).toStrictEqual(range(1, last));
      expect((await h.store.changesAfter(2, 4)).map((c) => c.seq)).toStrictEqual([3, 4, 5, 6]);
      expect(await h.store.changesAfter(last - 1, 100)).toStrictEqual([all.at(-1)]);
      expect(await h.store.changesAfter(last, 100)).toStrictEqual([]);
      const raw = await h.rawRows(`select seq from changes order by seq`);
      expect(raw.map((r) => int(r.seq))).toStrictEqual(range(1, last));
      const counter = await h.rawRows(`select value from counters where name = 'change_seq'`);
      expect(int(counter[0]?.value)).toBe(last);
    });
  });
}
