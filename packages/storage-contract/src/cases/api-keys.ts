/** API keys: round trips, revocation, use tracking. */
import { describe, expect, it } from 'vitest';
import type { KeyKind, StoreWriter } from '@svc/domain';
import { T0, int, q, seed, sortById, type Harness } from '../fixtures.ts';

export function describeApiKeys(h: Harness): void {
  const insertKey = (
    tx: StoreWriter,
    s: { workspace: { id: string }; project: { id: string } },
    serviceId: string | null,
    n: number,
    kind: KeyKind = 'secret',
  ) =>
    tx.insertApiKey({
      workspaceId: s.workspace.id,
      projectId: s.project.id,
      serviceId,
      kind,
      name: `key ${n}`,
      prefix: `svs_prefx${n}`,
      hash: `hash-${n}`,
    });

  describe('api keys', () => {
    it('inserts a key and finds it by hash and by id', async () => {
      const s = await seed(h.store);
      h.clock.set(T0 + 11);
      const key = await h.store.transaction((tx) => insertKey(tx, s, s.service.id, 1, 'public'));
      expect(key).toStrictEqual({
        id: expect.any(String),
        workspaceId: s.workspace.id,
        projectId: s.project.id,
        serviceId: s.service.id,
        kind: 'public',
        name: 'key 1',
        prefix: 'svs_prefx1',
        hash: 'hash-1',
        createdAt: T0 + 11,
        lastUsedAt: null,
        revokedAt: null,
        identityId: null,
        expiresAt: null,
      });
      expect(await h.store.findApiKeyByHash('hash-1')).toStrictEqual(key);
      expect(await h.store.findApiKeyById(key.id)).toStrictEqual(key);
      expect(await h.store.findApiKeyByHash('hash-2')).toBeUndefined();
      expect(await h.store.findApiKeyById('no-such-id')).toBeUndefined();
      const rows = await h.rawRows(`select * from api_keys where id = ${q(key.id)}`);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ hash: 'hash-1', kind: 'public', service_id: s.service.id });
    });

    it('lists the keys of one project, or all of them', async () => {
      const one = await seed(h.store, 'one');
      const two = await seed(h.store, 'two');
      const [a, b, c] = await h.store.transaction(async (tx) => [
        await insertKey(tx, one, null, 1),
        await insertKey(tx, one, one.service.id, 2),
        await insertKey(tx, two, null, 3),
      ]);
      expect(sortById(await h.store.listApiKeys(one.project.id))).toStrictEqual(sortById([a!, b!]));
      expect(await h.store.listApiKeys(two.project.id)).toStrictEqual([c]);
      expect(sortById(await h.store.listApiKeys())).toStrictEqual(sortById([a!, b!, c!]));
    });

    it('revokes a key once, in its own project only, and still lists it', async () => {
      const one = await seed(h.store, 'one');
      const two = await seed(h.store, 'two');
      const key = await h.store.transaction((tx) => insertKey(tx, one, null, 1));
      expect(await h.store.transaction((tx) => tx.revokeApiKey(two.project.id, key.id))).toBe(
        false,
      );
      expect(await h.store.transaction((tx) => tx.revokeApiKey(one.project.id, 'no-such-id'))).toBe(
        false,
      );
      expect((await h.store.findApiKeyById(key.id))?.revokedAt).toBeNull();

      h.clock.set(T0 + 50);
      expect(await h.store.transaction((tx) => tx.revokeApiKey(one.project.id, key.id))).toBe(true);
      const revoked = { ...key, revokedAt: T0 + 50 };
      expect(await h.store.findApiKeyById(key.id)).toStrictEqual(revoked);
      expect(await h.store.findApiKeyByHash(key.hash)).toStrictEqual(revoked);
      expect(await h.store.listApiKeys(one.project.id)).toStrictEqual([revoked]);

      h.clock.set(T0 + 60);
      expect(await h.store.transaction((tx) => tx.revokeApiKey(one.project.id, key.id))).toBe(
        false,
      );
      expect((await h.store.findApiKeyById(key.id))?.revokedAt).toBe(T0 + 50);
    });

    it('records the use of the given keys only, and logs no change for it', async () => {
      const s = await seed(h.store);
      const [a, b, c] = await h.store.transaction(async (tx) => [
        await insertKey(tx, s, null, 1),
        await insertKey(tx, s, null, 2),
        await insertKey(tx, s, null, 3),
      ]);
      const seq = await h.store.lastChangeSeq();
      await h.store.transaction((tx) => tx.touchApiKeys([a!.id, c!.id], T0 + 99));
      await h.store.transaction((tx) => tx.touchApiKeys([], T0 + 100));
      expect((await h.store.findApiKeyById(a!.id))?.lastUsedAt).toBe(T0 + 99);
      expect((await h.store.findApiKeyById(b!.id))?.lastUsedAt).toBeNull();
      expect((await h.store.findApiKeyById(c!.id))?.lastUsedAt).toBe(T0 + 99);
      await h.store.transaction((tx) => tx.touchApiKeys([a!.id], T0 + 120));
      expect((await h.store.findApiKeyById(a!.id))?.lastUsedAt).toBe(T0 + 120);
      expect(await h.store.lastChangeSeq()).toBe(seq);
      const rows = await h.rawRows(`select last_used_at from api_keys where id = ${q(c!.id)}`);
      expect(int(rows[0]?.last_used_at)).toBe(T0 + 99);
    });
  });
}
