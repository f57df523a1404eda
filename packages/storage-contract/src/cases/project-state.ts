/** loadProjectState: everything a project holds, by scope, current secret versions only. */
import { describe, expect, it } from 'vitest';
import type { ConfigEntry, FlagEntry, SecretVersion } from '@svc/domain';
import { T0, seed, sortById, type Harness } from '../fixtures.ts';

export function describeProjectState(h: Harness): void {
  describe('loadProjectState', () => {
    it('is undefined for an unknown project', async () => {
      expect(await h.store.loadProjectState('no-such-id')).toBeUndefined();
    });

    it('holds the project, its services and its items by scope', async () => {
      const s = await seed(h.store);
      const other = await seed(h.store, 'other');
      h.clock.set(T0 + 8);
      const worker = await h.store.transaction(async (tx) => {
        const worker = await tx.insertService({
          projectId: s.project.id,
          slug: 'worker',
          name: 'W',
        });
        await tx.putConfig(s.projectScope, { key: 'a', valueJson: '1', isPublic: true });
        await tx.putConfig(s.projectScope, { key: 'b', valueJson: '2', isPublic: false });
        await tx.putConfig(s.serviceScope, { key: 'a', valueJson: '3', isPublic: false });
        await tx.putFlag(s.serviceScope, {
          key: 'f',
          isActive: true,
          rules: [],
          rolloutPercentage: 25.5,
          salt: null,
        });
        for (const v of [1, 2]) {
          await tx.insertSecretVersion(s.projectScope, 'sec', {
            version: v,
            type: 'text',
            fileName: null,
            sealed: `sec${v}`,
          });
        }
        await tx.insertSecretVersion(s.projectScope, 'gone', {
          version: 1,
          type: 'text',
          fileName: null,
          sealed: 'g',
        });
        await tx.deleteSecret(s.projectScope, 'gone');
        await tx.insertSecretVersion(s.projectScope, 'old', {
          version: 1,
          type: 'text',
          fileName: null,
          sealed: 'o1',
        });
        await tx.insertSecretVersion(s.projectScope, 'old', {
          version: 2,
          type: 'text',
          fileName: null,
          sealed: 'o2',
        });
        await tx.deleteSecretVersion(s.projectScope, 'old', 2);
        await tx.insertSecretVersion(s.serviceScope, 'sec', {
          version: 1,
          type: 'file',
          fileName: 'f.txt',
          sealed: 'svc',
        });
        // Another project's items must not show up.
        await tx.putConfig(other.projectScope, { key: 'z', valueJson: '0', isPublic: true });
        return worker;
      });

      const state = await h.store.loadProjectState(s.project.id);
      if (!state) throw new Error('no state');
      expect(state.project).toStrictEqual(await h.store.findProjectById(s.project.id));
      expect(state.project.revision).toBe(12);
      expect(sortById(state.services)).toStrictEqual(sortById([s.service, worker]));

      const sortedScopes = (map: Map<string, unknown[]>) =>
        [...map.entries()]
          .filter(([, items]) => items.length > 0)
          .map(([scope]) => scope)
          .sort();
      const byKey = <T extends { key: string }>(items: T[] | undefined): T[] =>
        [...(items ?? [])].sort((a, b) => a.key.localeCompare(b.key));
      const at = T0 + 8;

      expect(sortedScopes(state.configs)).toStrictEqual(['', s.service.id].sort());
      expect(byKey(state.configs.get(''))).toStrictEqual<ConfigEntry[]>([
        { key: 'a', valueJson: '1', isPublic: true, updatedAt: at },
        { key: 'b', valueJson: '2', isPublic: false, updatedAt: at },
      ]);
      expect(state.configs.get(s.service.id)).toStrictEqual<ConfigEntry[]>([
        { key: 'a', valueJson: '3', isPublic: false, updatedAt: at },
      ]);
      expect(state.configs.get(worker.id) ?? []).toStrictEqual([]);

      expect(sortedScopes(state.flags)).toStrictEqual([s.service.id]);
      expect(state.flags.get(s.service.id)).toStrictEqual<FlagEntry[]>([
        { key: 'f', isActive: true, rules: [], rolloutPercentage: 25.5, salt: null, updatedAt: at },
      ]);

      expect(sortedScopes(state.secrets)).toStrictEqual(['', s.service.id].sort());
      expect(byKey(state.secrets.get(''))).toStrictEqual<SecretVersion[]>([
        { key: 'old', version: 1, type: 'text', fileName: null, sealed: 'o1', createdAt: at },
        { key: 'sec', version: 2, type: 'text', fileName: null, sealed: 'sec2', createdAt: at },
      ]);
      expect(state.secrets.get(s.service.id)).toStrictEqual<SecretVersion[]>([
        { key: 'sec', version: 1, type: 'file', fileName: 'f.txt', sealed: 'svc', createdAt: at },
      ]);
    });

    it('matches what the per-scope reads return', async () => {
      const s = await seed(h.store);
      await h.store.transaction(async (tx) => {
        for (let i = 0; i < 30; i++) {
          const scope = i % 2 ? s.serviceScope : s.projectScope;
          await tx.putConfig(scope, { key: `c${i}`, valueJson: String(i), isPublic: i % 3 === 0 });
          await tx.putFlag(scope, {
            key: `f${i}`,
            isActive: i % 4 === 0,
            rules: [],
            rolloutPercentage: i,
            salt: null,
          });
          await tx.insertSecretVersion(scope, `s${i}`, {
            version: 1,
            type: 'text',
            fileName: null,
            sealed: `x${i}`,
          });
        }
      });
      const state = await h.store.loadProjectState(s.project.id);
      if (!state) throw new Error('no state');
      for (const scope of [s.projectScope, s.serviceScope]) {
        const id = scope.serviceId ?? '';
        const sorted = <T extends { key: string }>(items: T[] | undefined) =>
          [...(items ?? [])].sort((a, b) => a.key.localeCompare(b.key));
        expect(sorted(state.configs.get(id))).toStrictEqual(
          sorted(await h.store.listConfigs(scope)),
        );
        expect(sorted(state.flags.get(id))).toStrictEqual(sorted(await h.store.listFlags(scope)));
        expect(sorted(state.secrets.get(id))).toStrictEqual(
          sorted(await h.store.listSecrets(scope)),
        );
        expect(state.configs.get(id)).toHaveLength(15);
      }
    });
  });
}
