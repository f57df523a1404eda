/** Configs and flags: per-scope round trips, overwrites, deletes, column conventions. */
import { describe, expect, it } from 'vitest';
import type { TargetingRule } from '@svc/domain';
import { T0, int, revisionOf, seed, type Harness } from '../fixtures.ts';

const RULES: TargetingRule[] = [
  {
    conditions: [
      { attribute: 'country', operator: 'in', values: ['DE', 'AT'] },
      { attribute: 'app_version', operator: 'semver_gt', values: ['1.2.3'] },
    ],
    result: true,
  },
  { conditions: [{ attribute: 'user_id', operator: 'eq', values: ['u-1'] }], result: false },
];

export function describeConfigsAndFlags(h: Harness): void {
  describe('configs', () => {
    it('keeps project-level and service-level configs apart', async () => {
      const s = await seed(h.store);
      h.clock.set(T0 + 3);
      await h.store.transaction(async (tx) => {
        await tx.putConfig(s.projectScope, {
          key: 'db.pool',
          valueJson: '{"max":10}',
          isPublic: false,
        });
        await tx.putConfig(s.projectScope, {
          key: 'ui.theme',
          valueJson: '"dark"',
          isPublic: true,
        });
        await tx.putConfig(s.serviceScope, {
          key: 'db.pool',
          valueJson: '{"max":3}',
          isPublic: true,
        });
      });
      expect(await h.store.listConfigs(s.projectScope)).toStrictEqual([
        { key: 'db.pool', valueJson: '{"max":10}', isPublic: false, updatedAt: T0 + 3 },
        { key: 'ui.theme', valueJson: '"dark"', isPublic: true, updatedAt: T0 + 3 },
      ]);
      expect(await h.store.listConfigs(s.serviceScope)).toStrictEqual([
        { key: 'db.pool', valueJson: '{"max":3}', isPublic: true, updatedAt: T0 + 3 },
      ]);
      const rows = await h.rawRows(
        `select scope, key, value_json, is_public from configs order by scope, key`,
      );
      expect(rows.map((r) => [r.scope, r.key, r.value_json, int(r.is_public)])).toEqual([
        ['', 'db.pool', '{"max":10}', 0],
        ['', 'ui.theme', '"dark"', 1],
        [s.service.id, 'db.pool', '{"max":3}', 1],
      ]);
    });

    it('stores any JSON text exactly', async () => {
      const s = await seed(h.store);
      const values = [
        'null',
        '0',
        '-1.5e-7',
        'true',
        '""',
        '"ünïcødé ✓"',
        '[1,[2,{}]]',
        '{"a":{"b":[null]}}',
      ];
      await h.store.transaction(async (tx) => {
        for (const [i, valueJson] of values.entries()) {
          await tx.putConfig(s.projectScope, { key: `k${i}`, valueJson, isPublic: false });
        }
      });
      const listed = await h.store.listConfigs(s.projectScope);
      expect(listed.map((c) => c.valueJson).sort()).toStrictEqual([...values].sort());
    });

    it('overwrites a config in place', async () => {
      const s = await seed(h.store);
      await h.store.transaction((tx) =>
        tx.putConfig(s.projectScope, { key: 'a', valueJson: '1', isPublic: false }),
      );
      h.clock.set(T0 + 20);
      await h.store.transaction((tx) =>
        tx.putConfig(s.projectScope, { key: 'a', valueJson: '2', isPublic: true }),
      );
      expect(await h.store.listConfigs(s.projectScope)).toStrictEqual([
        { key: 'a', valueJson: '2', isPublic: true, updatedAt: T0 + 20 },
      ]);
      expect(await h.rawRows(`select key from configs`)).toHaveLength(1);
    });

    it('deletes a config of one scope, and nothing when it is missing', async () => {
      const s = await seed(h.store);
      await h.store.transaction(async (tx) => {
        await tx.putConfig(s.projectScope, { key: 'a', valueJson: '1', isPublic: false });
        await tx.putConfig(s.serviceScope, { key: 'a', valueJson: '2', isPublic: false });
      });
      const change = await h.store.transaction((tx) => tx.deleteConfig(s.serviceScope, 'a'));
      expect(change).toMatchObject({ kind: 'config', key: 'a', op: 'delete' });
      expect(await h.store.listConfigs(s.serviceScope)).toStrictEqual([]);
      expect(await h.store.listConfigs(s.projectScope)).toHaveLength(1);

      const revision = await revisionOf(h.store, s.project.id);
      const seq = await h.store.lastChangeSeq();
      expect(
        await h.store.transaction((tx) => tx.deleteConfig(s.serviceScope, 'a')),
      ).toBeUndefined();
      expect(
        await h.store.transaction((tx) => tx.deleteConfig(s.projectScope, 'b')),
      ).toBeUndefined();
      expect(await revisionOf(h.store, s.project.id)).toBe(revision);
      expect(await h.store.lastChangeSeq()).toBe(seq);
      expect(await h.rawRows(`select key from configs`)).toHaveLength(1);
    });

    it('finds one config of one scope, exactly as listed', async () => {
      const s = await seed(h.store);
      const other = await seed(h.store, 'other');
      h.clock.set(T0 + 5);
      await h.store.transaction(async (tx) => {
        await tx.putConfig(s.projectScope, { key: 'a.b', valueJson: '{"x":1}', isPublic: true });
        await tx.putConfig(s.serviceScope, { key: 'a.b', valueJson: '2', isPublic: false });
      });
      expect(await h.store.findConfig(s.projectScope, 'a.b')).toStrictEqual({
        key: 'a.b',
        valueJson: '{"x":1}',
        isPublic: true,
        updatedAt: T0 + 5,
      });
      expect(await h.store.findConfig(s.serviceScope, 'a.b')).toStrictEqual(
        (await h.store.listConfigs(s.serviceScope))[0],
      );
      expect(await h.store.findConfig(s.projectScope, 'A.B')).toBeUndefined();
      expect(await h.store.findConfig(other.projectScope, 'a.b')).toBeUndefined();
      await h.store.transaction((tx) => tx.deleteConfig(s.projectScope, 'a.b'));
      expect(await h.store.findConfig(s.projectScope, 'a.b')).toBeUndefined();
      expect(await h.store.findConfig(s.serviceScope, 'a.b')).toBeDefined();
    });

    it('lists nothing for another project', async () => {
      const one = await seed(h.store, 'one');
      const two = await seed(h.store, 'two');
      await h.store.transaction((tx) =>
        tx.putConfig(one.projectScope, { key: 'a', valueJson: '1', isPublic: true }),
      );
      expect(await h.store.listConfigs(two.projectScope)).toStrictEqual([]);
    });
  });

  describe('flags', () => {
    it('finds one flag of one scope, targeting included', async () => {
      const s = await seed(h.store);
      await h.store.transaction(async (tx) => {
        await tx.putFlag(s.serviceScope, {
          key: 'f',
          isActive: true,
          rules: RULES,
          rolloutPercentage: 50.5,
          salt: 'x',
        });
      });
      expect(await h.store.findFlag(s.serviceScope, 'f')).toStrictEqual(
        (await h.store.listFlags(s.serviceScope))[0],
      );
      expect(await h.store.findFlag(s.serviceScope, 'f')).toMatchObject({
        rules: RULES,
        rolloutPercentage: 50.5,
      });
      expect(await h.store.findFlag(s.projectScope, 'f')).toBeUndefined();
      await h.store.transaction((tx) => tx.deleteFlag(s.serviceScope, 'f'));
      expect(await h.store.findFlag(s.serviceScope, 'f')).toBeUndefined();
    });

    it('round-trips rules, rollout, salt and activity per scope', async () => {
      const s = await seed(h.store);
      h.clock.set(T0 + 4);
      await h.store.transaction(async (tx) => {
        await tx.putFlag(s.projectScope, {
          key: 'checkout.v2',
          isActive: true,
          rules: RULES,
          rolloutPercentage: 12.34,
          salt: 'pepper',
        });
        await tx.putFlag(s.projectScope, {
          key: 'search.beta',
          isActive: false,
          rules: [],
          rolloutPercentage: 100,
          salt: null,
        });
        await tx.putFlag(s.serviceScope, {
          key: 'checkout.v2',
          isActive: true,
          rules: [],
          rolloutPercentage: 0,
          salt: '',
        });
      });
      expect(await h.store.listFlags(s.projectScope)).toStrictEqual([
        {
          key: 'checkout.v2',
          isActive: true,
          rules: RULES,
          rolloutPercentage: 12.34,
          salt: 'pepper',
          updatedAt: T0 + 4,
        },
        {
          key: 'search.beta',
          isActive: false,
          rules: [],
          rolloutPercentage: 100,
          salt: null,
          updatedAt: T0 + 4,
        },
      ]);
      expect(await h.store.listFlags(s.serviceScope)).toStrictEqual([
        {
          key: 'checkout.v2',
          isActive: true,
          rules: [],
          rolloutPercentage: 0,
          salt: '',
          updatedAt: T0 + 4,
        },
      ]);
      const rows = await h.rawRows(
        `select scope, key, is_active, rollout_hundredths, salt from flags order by scope, key`,
      );
      expect(
        rows.map((r) => [r.scope, r.key, int(r.is_active), int(r.rollout_hundredths), r.salt]),
      ).toEqual([
        ['', 'checkout.v2', 1, 1234, 'pepper'],
        ['', 'search.beta', 0, 10000, null],
        [s.service.id, 'checkout.v2', 1, 0, ''],
      ]);
    });

    it('keeps every two-decimal rollout exactly', async () => {
      const s = await seed(h.store);
      // 0.29 * 100 is 28.999999999999996 in floating point: the conversion must round.
      const percentages = [0, 0.01, 0.1, 0.29, 0.57, 1.13, 4.35, 12.34, 33.33, 50, 99.99, 100];
      await h.store.transaction(async (tx) => {
        for (const [i, rolloutPercentage] of percentages.entries()) {
          await tx.putFlag(s.projectScope, {
            key: `f${i}`,
            isActive: true,
            rules: [],
            rolloutPercentage,
            salt: null,
          });
        }
      });
      const flags = await h.store.listFlags(s.projectScope);
      const byKey = new Map(flags.map((f) => [f.key, f.rolloutPercentage]));
      expect(percentages.map((_, i) => byKey.get(`f${i}`))).toStrictEqual(percentages);
    });

    it('overwrites and deletes a flag, and deletes nothing when it is missing', async () => {
      const s = await seed(h.store);
      const flag = { key: 'f', isActive: true, rules: RULES, rolloutPercentage: 50, salt: null };
      await h.store.transaction((tx) => tx.putFlag(s.projectScope, flag));
      h.clock.set(T0 + 30);
      await h.store.transaction((tx) =>
        tx.putFlag(s.projectScope, { ...flag, isActive: false, rules: [], salt: 's' }),
      );
      expect(await h.store.listFlags(s.projectScope)).toStrictEqual([
        { ...flag, isActive: false, rules: [], salt: 's', updatedAt: T0 + 30 },
      ]);
      const change = await h.store.transaction((tx) => tx.deleteFlag(s.projectScope, 'f'));
      expect(change).toMatchObject({ kind: 'flag', key: 'f', op: 'delete' });
      expect(await h.store.listFlags(s.projectScope)).toStrictEqual([]);
      expect(await h.rawRows(`select key from flags`)).toHaveLength(0);

      const revision = await revisionOf(h.store, s.project.id);
      const seq = await h.store.lastChangeSeq();
      expect(await h.store.transaction((tx) => tx.deleteFlag(s.projectScope, 'f'))).toBeUndefined();
      expect(await revisionOf(h.store, s.project.id)).toBe(revision);
      expect(await h.store.lastChangeSeq()).toBe(seq);
    });
  });
}
