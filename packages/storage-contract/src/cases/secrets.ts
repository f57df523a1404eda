/**
 * Secret versions through the store: the current version is the highest remaining one, numbers
 * are never reused, deleted versions keep their row with the sealed value erased.
 */
import { describe, expect, it } from 'vitest';
import { VersionConflictError, setSecret, type Scope, type StoreWriter } from '@svc/domain';
import { T0, fakeSealer, int, q, revisionOf, seed, type Harness } from '../fixtures.ts';

export function describeSecrets(h: Harness): void {
  const insert = (tx: StoreWriter, scope: Scope, key: string, version: number) =>
    tx.insertSecretVersion(scope, key, {
      version,
      type: 'text',
      fileName: null,
      sealed: `sealed-${key}-${version}`,
    });

  const rawVersions = async (key: string) =>
    (
      await h.rawRows(
        `select version, sealed, deleted_at from secret_versions where key = ${q(key)} order by version`,
      )
    ).map((r) => ({ version: int(r.version), sealed: r.sealed, deletedAt: int(r.deleted_at) }));

  describe('secrets', () => {
    it('lists the current version of each secret and the remaining ones oldest first', async () => {
      const s = await seed(h.store);
      await h.store.transaction(async (tx) => {
        h.clock.set(T0 + 1);
        await insert(tx, s.projectScope, 'stripe.key', 1);
        h.clock.set(T0 + 2);
        await insert(tx, s.projectScope, 'stripe.key', 2);
        await tx.insertSecretVersion(s.projectScope, 'tls.cert', {
          version: 1,
          type: 'file',
          fileName: 'tls.pem',
          sealed: 'sealed-cert',
        });
      });
      const v1 = {
        key: 'stripe.key',
        version: 1,
        type: 'text',
        fileName: null,
        sealed: 'sealed-stripe.key-1',
        createdAt: T0 + 1,
      };
      const v2 = { ...v1, version: 2, sealed: 'sealed-stripe.key-2', createdAt: T0 + 2 };
      const cert = {
        key: 'tls.cert',
        version: 1,
        type: 'file',
        fileName: 'tls.pem',
        sealed: 'sealed-cert',
        createdAt: T0 + 2,
      };
      const current = await h.store.listSecrets(s.projectScope);
      expect([...current].sort((a, b) => a.key.localeCompare(b.key))).toStrictEqual([v2, cert]);
      expect(await h.store.listSecretVersions(s.projectScope, 'stripe.key')).toStrictEqual([
        v1,
        v2,
      ]);
      expect(await h.store.listSecretVersions(s.projectScope, 'nope')).toStrictEqual([]);
      expect(await h.store.findSecret(s.projectScope, 'stripe.key')).toStrictEqual(v2);
      expect(await h.store.findSecret(s.projectScope, 'tls.cert')).toStrictEqual(cert);
      expect(await h.store.findSecret(s.projectScope, 'nope')).toBeUndefined();
      expect(await h.store.findSecret(s.serviceScope, 'stripe.key')).toBeUndefined();
      expect(await h.store.listSecrets(s.serviceScope)).toStrictEqual([]);
      await h.store.transaction(async (tx) => {
        expect(await tx.maxSecretVersion(s.projectScope, 'stripe.key')).toBe(2);
        expect(await tx.maxSecretVersion(s.projectScope, 'nope')).toBe(0);
        expect(await tx.maxSecretVersion(s.serviceScope, 'stripe.key')).toBe(0);
      });
    });

    it('deletes versions one by one; the last one deletes the secret', async () => {
      const s = await seed(h.store);
      await h.store.transaction(async (tx) => {
        for (const v of [1, 2, 3]) await insert(tx, s.projectScope, 'k', v);
      });
      h.clock.set(T0 + 40);
      const dropCurrent = await h.store.transaction((tx) =>
        tx.deleteSecretVersion(s.projectScope, 'k', 3),
      );
      expect(dropCurrent).toMatchObject({ kind: 'secret', key: 'k', op: 'upsert' });
      expect((await h.store.findSecret(s.projectScope, 'k'))?.version).toBe(2);
      expect((await h.store.listSecrets(s.projectScope)).map((v) => v.version)).toStrictEqual([2]);

      const dropOld = await h.store.transaction((tx) =>
        tx.deleteSecretVersion(s.projectScope, 'k', 1),
      );
      expect(dropOld).toMatchObject({ op: 'upsert' });
      expect(
        (await h.store.listSecretVersions(s.projectScope, 'k')).map((v) => v.version),
      ).toStrictEqual([2]);

      const dropLast = await h.store.transaction((tx) =>
        tx.deleteSecretVersion(s.projectScope, 'k', 2),
      );
      expect(dropLast).toMatchObject({ kind: 'secret', key: 'k', op: 'delete' });
      expect(await h.store.listSecrets(s.projectScope)).toStrictEqual([]);
      expect(await h.store.listSecretVersions(s.projectScope, 'k')).toStrictEqual([]);
      expect(await h.store.findSecret(s.projectScope, 'k')).toBeUndefined();
      expect(await h.store.transaction((tx) => tx.maxSecretVersion(s.projectScope, 'k'))).toBe(3);
      expect(await rawVersions('k')).toStrictEqual([
        { version: 1, sealed: null, deletedAt: T0 + 40 },
        { version: 2, sealed: null, deletedAt: T0 + 40 },
        { version: 3, sealed: null, deletedAt: T0 + 40 },
      ]);
    });

    it('deletes nothing for a version that is gone or never was', async () => {
      const s = await seed(h.store);
      await h.store.transaction(async (tx) => {
        await insert(tx, s.projectScope, 'k', 1);
        await insert(tx, s.projectScope, 'k', 2);
      });
      await h.store.transaction((tx) => tx.deleteSecretVersion(s.projectScope, 'k', 1));
      const revision = await revisionOf(h.store, s.project.id);
      const seq = await h.store.lastChangeSeq();
      for (const [key, version] of [
        ['k', 1],
        ['k', 3],
        ['other', 1],
      ] as const) {
        expect(
          await h.store.transaction((tx) => tx.deleteSecretVersion(s.projectScope, key, version)),
        ).toBeUndefined();
      }
      expect(
        await h.store.transaction((tx) => tx.deleteSecretVersion(s.serviceScope, 'k', 2)),
      ).toBeUndefined();
      expect(await revisionOf(h.store, s.project.id)).toBe(revision);
      expect(await h.store.lastChangeSeq()).toBe(seq);
      expect((await h.store.listSecrets(s.projectScope)).map((v) => v.version)).toStrictEqual([2]);
    });

    it('deletes a whole secret, erasing every sealed value but keeping the numbers', async () => {
      const s = await seed(h.store);
      await h.store.transaction(async (tx) => {
        for (const v of [1, 2, 3]) await insert(tx, s.projectScope, 'k', v);
        await insert(tx, s.serviceScope, 'k', 1);
      });
      await h.store.transaction((tx) => tx.deleteSecretVersion(s.projectScope, 'k', 2));
      h.clock.set(T0 + 70);
      const change = await h.store.transaction((tx) => tx.deleteSecret(s.projectScope, 'k'));
      expect(change).toMatchObject({ kind: 'secret', key: 'k', op: 'delete', serviceId: null });
      expect(await h.store.listSecrets(s.projectScope)).toStrictEqual([]);
      expect(await h.store.listSecretVersions(s.projectScope, 'k')).toStrictEqual([]);
      // The service's secret of the same key is another secret.
      expect((await h.store.listSecrets(s.serviceScope)).map((v) => v.version)).toStrictEqual([1]);
      const rows = await h.rawRows(
        `select version, sealed, deleted_at from secret_versions where scope = '' order by version`,
      );
      expect(rows.map((r) => [int(r.version), r.sealed])).toStrictEqual([
        [1, null],
        [2, null],
        [3, null],
      ]);
      expect(rows.every((r) => int(r.deleted_at) !== null)).toBe(true);
      expect(int(rows[0]?.deleted_at)).toBe(T0 + 70);

      const seq = await h.store.lastChangeSeq();
      expect(
        await h.store.transaction((tx) => tx.deleteSecret(s.projectScope, 'k')),
      ).toBeUndefined();
      expect(
        await h.store.transaction((tx) => tx.deleteSecret(s.projectScope, 'never')),
      ).toBeUndefined();
      expect(await h.store.lastChangeSeq()).toBe(seq);

      const again = await h.store.transaction(async (tx) => {
        expect(await tx.maxSecretVersion(s.projectScope, 'k')).toBe(3);
        return setSecret(tx, fakeSealer, s.projectScope, { key: 'k', value: 'new', type: 'text' });
      });
      expect(again).toMatchObject({ version: 4, created: true });
      const [current] = await h.store.listSecrets(s.projectScope);
      expect(current?.version).toBe(4);
      expect(fakeSealer.open(current!.sealed, `v2/${s.project.id}//k/4/text/`)).toBe('new');
    });

    it('versions secrets through setSecret, with optimistic concurrency', async () => {
      const s = await seed(h.store);
      const set = (value: string, expectedVersion?: number) =>
        h.store.transaction((tx) =>
          setSecret(tx, fakeSealer, s.serviceScope, {
            key: 'db.password',
            value,
            type: 'file',
            fileName: 'pw.txt',
            expectedVersion,
          }),
        );
      expect(await set('one', 0)).toMatchObject({ version: 1, created: true, type: 'file' });
      expect(await set('two')).toMatchObject({ version: 2, created: false });
      await expect(set('stale', 1)).rejects.toBeInstanceOf(VersionConflictError);
      expect(await set('three', 2)).toMatchObject({ version: 3, created: false });
      const versions = await h.store.listSecretVersions(s.serviceScope, 'db.password');
      expect(versions.map((v) => [v.version, v.type, v.fileName])).toStrictEqual([
        [1, 'file', 'pw.txt'],
        [2, 'file', 'pw.txt'],
        [3, 'file', 'pw.txt'],
      ]);
      const ctx = (v: number) => `v2/${s.project.id}/${s.service.id}/db.password/${v}/file/pw.txt`;
      expect(versions.map((v) => fakeSealer.open(v.sealed, ctx(v.version)))).toStrictEqual([
        'one',
        'two',
        'three',
      ]);
      expect(await h.rawRows(`select version from secret_versions`)).toHaveLength(3);
    });
  });
}
