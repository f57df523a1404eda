/**
 * Workload identities and the keys minted from them: round trips of every method's settings,
 * names unique per project, use tracking, live-key counts, and deleting an identity's keys
 * with one `key` change per live key (so every api instance drops them).
 */
import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  NotFoundError,
  type IdentityBinding,
  type NewIdentity,
  type StoreWriter,
} from '@svc/domain';
import { T0, int, q, seed, type Harness, type Seeded } from '../fixtures.ts';

const bindings: IdentityBinding[] = [
  {
    method: 'oidc',
    settings: {
      issuer: 'https://token.actions.githubusercontent.com',
      jwksUrl: null,
      audiences: ['svc', 'other'],
      subject: 'repo:acme/*:ref:refs/heads/main',
      claims: { repository_owner: 'acme', 'ünï.cødé': 'ü*' },
    },
  },
  {
    method: 'kubernetes',
    settings: {
      apiServer: 'https://10.0.0.1:443',
      caCert: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      audiences: [],
      namespaces: ['payments'],
      serviceAccounts: ['checkout', 'worker'],
    },
  },
  {
    method: 'aws',
    settings: {
      accounts: ['123456789012'],
      principalArns: ['arn:aws:iam::123456789012:role/checkout-*'],
      stsEndpoint: 'https://sts.eu-west-1.amazonaws.com',
      serverId: 'svc.example.com',
    },
  },
  {
    method: 'gcp',
    settings: {
      audience: 'https://svc.example.com',
      serviceAccounts: ['app@proj.iam.gserviceaccount.com'],
      projects: ['proj'],
      jwksUrl: null,
    },
  },
  {
    method: 'azure',
    settings: {
      tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
      audience: 'api://svc',
      principalIds: ['0c4e1b5a-1234-4abc-9def-0123456789ab'],
      jwksUrl: 'https://keys.example.com/keys',
    },
  },
];

function newIdentity(s: Seeded, name: string, patch: Partial<NewIdentity> = {}): NewIdentity {
  return {
    workspaceId: s.workspace.id,
    projectId: s.project.id,
    serviceId: null,
    name,
    kind: 'secret',
    ttlSeconds: 900,
    binding: bindings[0]!,
    sealedSecret: null,
    ...patch,
  };
}

let hashSerial = 0;
/** A key minted from `identityId`, expiring at `expiresAt`. */
function mintKey(tx: StoreWriter, s: Seeded, identityId: string, expiresAt: number) {
  const n = ++hashSerial;
  return tx.insertApiKey({
    workspaceId: s.workspace.id,
    projectId: s.project.id,
    serviceId: s.service.id,
    kind: 'secret',
    name: `minted ${n}`,
    prefix: 'svs_minted',
    hash: `minted-hash-${n}`,
    identityId,
    expiresAt,
  });
}

export function describeIdentities(h: Harness): void {
  describe('identities', () => {
    it('keeps every method’s settings, the sealed secret and the times', async () => {
      const s = await seed(h.store);
      h.clock.set(T0 + 5);
      const created = await h.store.transaction(async (tx) => {
        const out = [];
        for (const [i, binding] of bindings.entries()) {
          out.push(
            await tx.insertIdentity(
              newIdentity(s, `id-${i}`, {
                binding,
                serviceId: i === 1 ? s.service.id : null,
                kind: i === 2 ? 'public' : 'secret',
                ttlSeconds: 60 + i,
                sealedSecret: i === 1 ? 'sealed:reviewer' : null,
              }),
            ),
          );
        }
        return out;
      });
      expect(created[1]).toStrictEqual({
        id: expect.any(String),
        workspaceId: s.workspace.id,
        projectId: s.project.id,
        serviceId: s.service.id,
        name: 'id-1',
        kind: 'secret',
        ttlSeconds: 61,
        binding: bindings[1],
        sealedSecret: 'sealed:reviewer',
        createdAt: T0 + 5,
        updatedAt: T0 + 5,
        lastUsedAt: null,
      });
      for (const identity of created) {
        expect(await h.store.findIdentity(identity.id)).toStrictEqual(identity);
      }
      expect((await h.store.listIdentities(s.project.id)).map((i) => i.binding)).toStrictEqual(
        bindings,
      );
      expect(await h.store.findIdentity('no-such-id')).toBeUndefined();
      const rows = await h.rawRows(`select * from identities where id = ${q(created[2]!.id)}`);
      expect(rows[0]).toMatchObject({ method: 'aws', kind: 'public', sealed_secret: null });
      expect(JSON.parse(String(rows[0]!.settings_json))).toStrictEqual(bindings[2]!.settings);
    });

    it('lists a project’s identities by name, code point order', async () => {
      const one = await seed(h.store, 'one');
      const two = await seed(h.store, 'two');
      await h.store.transaction(async (tx) => {
        for (const name of ['b', 'C', 'a']) await tx.insertIdentity(newIdentity(one, name));
        await tx.insertIdentity(newIdentity(two, 'z'));
      });
      expect((await h.store.listIdentities(one.project.id)).map((i) => i.name)).toStrictEqual([
        'C',
        'a',
        'b',
      ]);
      expect((await h.store.listIdentities(two.project.id)).map((i) => i.name)).toStrictEqual([
        'z',
      ]);
    });

    it('keeps names unique per project, and the transaction usable after a conflict', async () => {
      const one = await seed(h.store, 'one');
      const two = await seed(h.store, 'two');
      const [first, other] = await h.store.transaction(async (tx) => [
        await tx.insertIdentity(newIdentity(one, 'ci')),
        await tx.insertIdentity(newIdentity(one, 'other')),
        await tx.insertIdentity(newIdentity(two, 'ci')),
      ]);
      const kept = await h.store.transaction(async (tx) => {
        await expect(tx.insertIdentity(newIdentity(one, 'ci'))).rejects.toBeInstanceOf(
          ConflictError,
        );
        await expect(tx.updateIdentity(other!.id, newIdentity(one, 'ci'))).rejects.toBeInstanceOf(
          ConflictError,
        );
        return tx.insertIdentity(newIdentity(one, 'after'));
      });
      expect(await h.store.findIdentity(kept.id)).toStrictEqual(kept);
      expect((await h.store.findIdentity(first!.id))?.name).toBe('ci');
    });

    it('updates every field but the ids and the creation time', async () => {
      const s = await seed(h.store);
      const identity = await h.store.transaction((tx) => tx.insertIdentity(newIdentity(s, 'ci')));
      h.clock.set(T0 + 40);
      const changed = newIdentity(s, 'renamed', {
        serviceId: s.service.id,
        kind: 'public',
        ttlSeconds: 43_200,
        binding: bindings[4]!,
        sealedSecret: 'sealed:x',
      });
      const updated = await h.store.transaction((tx) => tx.updateIdentity(identity.id, changed));
      const { workspaceId: _w, projectId: _p, ...fields } = changed;
      expect(updated).toStrictEqual({
        ...identity,
        ...fields,
        updatedAt: T0 + 40,
      });
      expect(await h.store.findIdentity(identity.id)).toStrictEqual(updated);
      await expect(
        h.store.transaction((tx) => tx.updateIdentity('no-such-id', changed)),
      ).rejects.toBeInstanceOf(NotFoundError);
    });

    it('records use, false once the identity is gone, and logs no change for either', async () => {
      const s = await seed(h.store);
      const identity = await h.store.transaction((tx) => tx.insertIdentity(newIdentity(s, 'ci')));
      const seq = await h.store.lastChangeSeq();
      expect(await h.store.transaction((tx) => tx.touchIdentity(identity.id, T0 + 77))).toBe(true);
      expect((await h.store.findIdentity(identity.id))?.lastUsedAt).toBe(T0 + 77);
      expect(await h.store.transaction((tx) => tx.deleteIdentity(identity.id))).toBe(true);
      expect(await h.store.transaction((tx) => tx.deleteIdentity(identity.id))).toBe(false);
      expect(await h.store.transaction((tx) => tx.touchIdentity(identity.id, T0 + 78))).toBe(false);
      expect(await h.store.findIdentity(identity.id)).toBeUndefined();
      expect(await h.store.lastChangeSeq()).toBe(seq);
    });

    it('stores minted keys with their identity and expiry, and counts the live ones', async () => {
      const s = await seed(h.store);
      const other = await seed(h.store, 'other');
      const [a, b, c] = await h.store.transaction(async (tx) => [
        await tx.insertIdentity(newIdentity(s, 'a')),
        await tx.insertIdentity(newIdentity(s, 'b')),
        await tx.insertIdentity(newIdentity(other, 'c')),
      ]);
      const keys = await h.store.transaction(async (tx) => [
        await mintKey(tx, s, a!.id, T0 + 1000),
        await mintKey(tx, s, a!.id, T0 + 2000),
        await mintKey(tx, s, a!.id, T0 + 500),
        await mintKey(tx, s, b!.id, T0 + 3000),
        await mintKey(tx, other, c!.id, T0 + 3000),
      ]);
      expect(keys[0]).toMatchObject({ identityId: a!.id, expiresAt: T0 + 1000, revokedAt: null });
      expect(await h.store.findApiKeyById(keys[0]!.id)).toStrictEqual(keys[0]);
      const rows = await h.rawRows(`select * from api_keys where id = ${q(keys[1]!.id)}`);
      expect(rows[0]!.identity_id).toBe(a!.id);
      expect(int(rows[0]!.expires_at)).toBe(T0 + 2000);

      await h.store.transaction((tx) => tx.revokeApiKey(s.project.id, keys[1]!.id));
      const live = await h.store.countLiveIdentityKeys(s.project.id, T0 + 600);
      expect(Object.fromEntries(live)).toStrictEqual({ [a!.id]: 1, [b!.id]: 1 });
      expect(
        Object.fromEntries(await h.store.countLiveIdentityKeys(s.project.id, T0 + 1000)),
      ).toStrictEqual({ [b!.id]: 1 });
    });

    it('deletes an identity’s keys, logging one key change per live key', async () => {
      const s = await seed(h.store);
      const [a, b] = await h.store.transaction(async (tx) => [
        await tx.insertIdentity(newIdentity(s, 'a')),
        await tx.insertIdentity(newIdentity(s, 'b')),
      ]);
      const [live1, live2, expired, revoked, kept] = await h.store.transaction(async (tx) => [
        await mintKey(tx, s, a!.id, T0 + 1000),
        await mintKey(tx, s, a!.id, T0 + 1000),
        await mintKey(tx, s, a!.id, T0 + 10),
        await mintKey(tx, s, a!.id, T0 + 1000),
        await mintKey(tx, s, b!.id, T0 + 1000),
      ]);
      await h.store.transaction((tx) => tx.revokeApiKey(s.project.id, revoked!.id));
      const seq = await h.store.lastChangeSeq();
      h.clock.set(T0 + 100);
      expect(await h.store.transaction((tx) => tx.revokeIdentityKeys(a!.id, T0 + 100))).toBe(2);
      for (const key of [live1, live2, expired, revoked]) {
        expect(await h.store.findApiKeyById(key!.id)).toBeUndefined();
      }
      expect(await h.store.findApiKeyById(kept!.id)).toStrictEqual(kept);
      const changes = await h.store.changesAfter(seq, 10);
      expect(changes.map((c) => [c.kind, c.op, c.key]).sort()).toStrictEqual(
        [
          ['key', 'delete', live1!.id],
          ['key', 'delete', live2!.id],
        ].sort(),
      );
      expect(changes[0]).toMatchObject({
        workspaceId: s.workspace.id,
        projectId: s.project.id,
        serviceId: s.service.id,
        revision: null,
        at: T0 + 100,
      });
    });

    it('deletes only the expired keys of one identity, without a change', async () => {
      const s = await seed(h.store);
      const [a, b] = await h.store.transaction(async (tx) => [
        await tx.insertIdentity(newIdentity(s, 'a')),
        await tx.insertIdentity(newIdentity(s, 'b')),
      ]);
      const [old, edge, fresh, othersOld] = await h.store.transaction(async (tx) => [
        await mintKey(tx, s, a!.id, T0 + 10),
        await mintKey(tx, s, a!.id, T0 + 50),
        await mintKey(tx, s, a!.id, T0 + 51),
        await mintKey(tx, s, b!.id, T0 + 10),
      ]);
      const seq = await h.store.lastChangeSeq();
      expect(await h.store.transaction((tx) => tx.deleteExpiredIdentityKeys(a!.id, T0 + 50))).toBe(
        2,
      );
      expect(await h.store.findApiKeyById(old!.id)).toBeUndefined();
      expect(await h.store.findApiKeyById(edge!.id)).toBeUndefined();
      expect(await h.store.findApiKeyById(fresh!.id)).toStrictEqual(fresh);
      expect(await h.store.findApiKeyById(othersOld!.id)).toStrictEqual(othersOld);
      expect(await h.store.lastChangeSeq()).toBe(seq);
    });
  });
}
