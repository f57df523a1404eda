import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConfigEntry, FlagEntry, SecretVersion } from '../model.ts';
import type { ProjectState } from '../ports.ts';
import { ProjectViews, type ItemUpdate } from './project-views.ts';
import { parseItemId, type ItemId, type OpenSecret, type View } from './view.ts';

const SCOPES = ['', 's1', 's2'] as const;
const KEYS = ['a', 'b', 'c.d'] as const;

type Op =
  | { scope: string; kind: 'config'; key: string; put?: { value: number; isPublic: boolean } }
  | { scope: string; kind: 'flag'; key: string; put?: { isActive: boolean; rollout: number } }
  | { scope: string; kind: 'secret'; key: string; put?: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    scope: fc.constantFrom(...SCOPES),
    kind: fc.constant('config' as const),
    key: fc.constantFrom(...KEYS),
    put: fc.option(fc.record({ value: fc.integer({ min: 0, max: 3 }), isPublic: fc.boolean() }), {
      nil: undefined,
    }),
  }),
  fc.record({
    scope: fc.constantFrom(...SCOPES),
    kind: fc.constant('flag' as const),
    key: fc.constantFrom(...KEYS),
    put: fc.option(fc.record({ isActive: fc.boolean(), rollout: fc.constantFrom(0, 50, 100) }), {
      nil: undefined,
    }),
  }),
  fc.record({
    scope: fc.constantFrom(...SCOPES),
    kind: fc.constant('secret' as const),
    key: fc.constantFrom(...KEYS),
    put: fc.option(fc.constant(true), { nil: undefined }),
  }),
);

/** A project's values as the store would hold them, changed one op at a time. */
class World {
  readonly configs = new Map<string, Map<string, ConfigEntry>>(SCOPES.map((s) => [s, new Map()]));
  readonly flags = new Map<string, Map<string, FlagEntry>>(SCOPES.map((s) => [s, new Map()]));
  readonly secrets = new Map<string, Map<string, SecretVersion>>(SCOPES.map((s) => [s, new Map()]));
  revision = 0;
  private version = 0;

  /** Applies the op and returns what the read model would read back for it. */
  apply(op: Op): ItemUpdate {
    this.revision += 1;
    const at = { serviceId: op.scope === '' ? null : op.scope, revision: this.revision };
    if (op.kind === 'config') {
      const scope = this.configs.get(op.scope)!;
      if (op.put) {
        const entry = {
          key: op.key,
          valueJson: String(op.put.value),
          isPublic: op.put.isPublic,
          updatedAt: 0,
        };
        scope.set(op.key, entry);
      } else scope.delete(op.key);
      return { ...at, kind: 'config', key: op.key, entry: scope.get(op.key) };
    }
    if (op.kind === 'flag') {
      const scope = this.flags.get(op.scope)!;
      if (op.put) {
        scope.set(op.key, {
          key: op.key,
          isActive: op.put.isActive,
          rules: [],
          rolloutPercentage: op.put.rollout,
          salt: null,
          updatedAt: 0,
        });
      } else scope.delete(op.key);
      return { ...at, kind: 'flag', key: op.key, entry: scope.get(op.key) };
    }
    const scope = this.secrets.get(op.scope)!;
    if (op.put) {
      this.version += 1;
      scope.set(op.key, {
        key: op.key,
        version: this.version,
        type: 'text',
        fileName: null,
        sealed: `v${this.version}`,
        createdAt: 0,
      });
    } else scope.delete(op.key);
    return { ...at, kind: 'secret', key: op.key, entry: scope.get(op.key) };
  }

  state(): ProjectState {
    const list = <T>(m: Map<string, Map<string, T>>) =>
      new Map([...m].map(([scope, items]) => [scope, [...items.values()]]));
    return {
      project: {
        id: 'p',
        workspaceId: 'w',
        slug: 'web',
        name: 'Web',
        abTesting: false,
        revision: this.revision,
        createdAt: 0,
      },
      services: [
        { id: 's1', projectId: 'p', slug: 's1', name: 'S1', createdAt: 0 },
        { id: 's2', projectId: 'p', slug: 's2', name: 'S2', createdAt: 0 },
      ],
      configs: list(this.configs),
      flags: list(this.flags),
      secrets: list(this.secrets),
    };
  }
}

const deps = (open: OpenSecret = (s) => `plain(${s.sealed})`) => ({
  open,
  digest: (text: string) => `d${text.length}`,
});

const byId = (pv: ProjectViews) => new Map([...pv.allViews()].map((v) => [v.id, v]));

/** The snapshot a view's items should give, rendered the plain way (the test's oracle). */
function reference(view: View): string {
  const sections: Record<string, Record<string, unknown>> = { configs: {}, flags: {} };
  if (view.keyType === 'sk') sections.secrets = {};
  const ids = [...view.items.keys()].sort();
  for (const id of ids) {
    const { kind, key } = parseItemId(id);
    sections[`${kind}s`]![key] = JSON.parse(view.items.get(id)!);
  }
  return JSON.stringify({ revision: view.revision, key_type: view.keyType, ...sections });
}

/**
 * The view, rebuilt from the whole state, is the same: items, flags, the bytes after the
 * revision (a rebuild stamps every view with the project's revision, a kept view keeps that of
 * the last change it saw) and the items' fingerprint, which its ETag digests.
 */
function expectSameView(view: View, rebuilt: View): void {
  const afterRevision = (body: string) => body.replace(/^\{"revision":\d+,/, '');
  expect([...view.items]).toStrictEqual([...rebuilt.items]);
  expect([...view.flags]).toStrictEqual([...rebuilt.flags]);
  expect(afterRevision(view.body)).toBe(afterRevision(rebuilt.body));
  expect(view.items.fingerprint).toBe(rebuilt.items.fingerprint);
  expect(view.body).toBe(reference(view));
}

describe('ProjectViews kept current item by item', () => {
  it('equals the views rebuilt from the whole state, after any sequence of batches', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 20 }),
        fc.array(fc.array(opArb, { minLength: 1, maxLength: 6 }), { maxLength: 12 }),
        (initial, batches) => {
          const world = new World();
          for (const op of initial) world.apply(op);
          const kept = ProjectViews.build(world.state(), deps());
          for (const batch of batches) {
            const before = byId(kept);
            const changed = kept.apply(batch.map((op) => world.apply(op)));
            const after = byId(kept);
            const rebuilt = byId(ProjectViews.build(world.state(), deps()));
            for (const [id, view] of after) {
              expectSameView(view, rebuilt.get(id)!);
              const old = before.get(id)!;
              const change = changed.find((c) => c.view.id === id);
              if (!change) {
                expect(view).toBe(old);
                continue;
              }
              // The diff turns the old items into the new ones.
              const replayed = new Map(old.items);
              for (const c of change.changes) {
                if (c.op === 'delete') replayed.delete(c.id);
                else replayed.set(c.id, c.json!);
              }
              expect(replayed).toStrictEqual(new Map(view.items));
              if (change.changes.length === 0) {
                expect(view.body).toBe(old.body);
                expect(view.revision).toBe(old.revision);
              } else {
                expect(view.revision).toBeGreaterThan(old.revision);
                expect(view.revision).toBeLessThanOrEqual(world.revision);
              }
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  }, 30_000);

  it('touches only the views of the changed scope, and opens no secret for a config', () => {
    const world = new World();
    world.apply({ scope: '', kind: 'secret', key: 'a', put: true });
    world.apply({ scope: 's1', kind: 'config', key: 'a', put: { value: 1, isPublic: true } });
    let opened = 0;
    const kept = ProjectViews.build(
      world.state(),
      deps((s) => {
        opened += 1;
        return s.sealed;
      }),
    );
    // One secret, opened once for the project level, not once per view.
    expect(opened).toBe(1);
    const before = byId(kept);
    const changed = kept.apply([
      world.apply({ scope: 's2', kind: 'config', key: 'b', put: { value: 2, isPublic: true } }),
    ]);
    expect(opened).toBe(1);
    expect(changed.map((c) => c.view.id).sort()).toEqual(['p|s2|pk', 'p|s2|sk']);
    const after = byId(kept);
    for (const id of ['p||sk', 'p||pk', 'p|s1|sk', 'p|s1|pk']) {
      expect(after.get(id)).toBe(before.get(id));
    }
    expect(after.get('p|s2|pk')!.revision).toBe(world.revision);
  });

  it('keeps the bytes and ETag of a view when only a flag targeting changed', () => {
    const world = new World();
    world.apply({ scope: '', kind: 'flag', key: 'a', put: { isActive: true, rollout: 100 } });
    const kept = ProjectViews.build(world.state(), deps());
    const before = byId(kept).get('p||sk')!;
    const changed = kept.apply([
      world.apply({ scope: '', kind: 'flag', key: 'a', put: { isActive: true, rollout: 50 } }),
    ]);
    const after: View = byId(kept).get('p||sk')!;
    expect(changed.find((c) => c.view.id === 'p||sk')?.changes).toEqual([]);
    expect(after.etag).toBe(before.etag);
    expect(after.flags.get('a')?.rolloutPercentage).toBe(50);
  });

  it('gives a new service the project-level views, then its own values', () => {
    const world = new World();
    world.apply({ scope: '', kind: 'config', key: 'a', put: { value: 1, isPublic: true } });
    const state = world.state();
    const kept = ProjectViews.build({ ...state, services: [] }, deps());
    const added = kept.addService('s1');
    expect(added.map((v) => v.id)).toEqual(['p|s1|sk', 'p|s1|pk']);
    expect(added[1]!.items.get('config:a' as ItemId)).toBe('1');
    expect(added[1]!.body).toBe(byId(kept).get('p||pk')!.body);
    const changed = kept.apply([
      world.apply({ scope: 's1', kind: 'config', key: 'a', put: { value: 2, isPublic: false } }),
    ]);
    expect(changed.find((c) => c.view.id === 'p|s1|pk')?.changes).toEqual([
      { id: 'config:a', op: 'delete' },
    ]);
  });
});

describe('ProjectViews of a 100,000-item project', () => {
  const ITEMS = 100_000;
  const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');
  /** Ops on the big project's keys, and on a few new ones. */
  const bigOpArb: fc.Arbitrary<Op> = fc
    .tuple(opArb, fc.integer({ min: 0, max: ITEMS + 50 }))
    .map(([op, n]) => ({ ...op, key: `k${n}` }));

  /** 60 % configs (a third public), 30 % flags, 10 % secrets; a few service overrides. */
  function bigWorld(): World {
    const world = new World();
    for (let n = 0; n < ITEMS; n++) {
      const scope = n % 97 === 0 ? 's1' : '';
      const key = `k${n}`;
      const kind = n % 10 < 6 ? 'config' : n % 10 < 9 ? 'flag' : 'secret';
      if (kind === 'config') {
        world.apply({ scope, kind, key, put: { value: n % 4, isPublic: n % 3 === 0 } });
      } else if (kind === 'flag') {
        world.apply({ scope, kind, key, put: { isActive: n % 2 === 0, rollout: 100 } });
      } else world.apply({ scope, kind, key, put: true });
    }
    return world;
  }

  it('equals a full rebuild after random batches of changes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(bigOpArb, { minLength: 1, maxLength: 8 }), {
          minLength: 1,
          maxLength: 10,
        }),
        (batches) => {
          const world = bigWorld();
          const kept = ProjectViews.build(world.state(), { ...deps(), digest: sha256 });
          // Each view's items as its streams' clients would hold them: the diffs applied.
          const mirrors = new Map([...kept.allViews()].map((v) => [v.id, new Map(v.items)]));
          for (const batch of batches) {
            for (const { view, changes } of kept.apply(batch.map((op) => world.apply(op)))) {
              const mirror = mirrors.get(view.id)!;
              for (const c of changes) {
                if (c.op === 'delete') mirror.delete(c.id);
                else mirror.set(c.id, c.json!);
              }
            }
          }
          const rebuilt = byId(ProjectViews.build(world.state(), { ...deps(), digest: sha256 }));
          for (const view of kept.allViews()) {
            expect(view.items.size).toBeGreaterThan(ITEMS / 3);
            expect(new Map(view.items)).toStrictEqual(mirrors.get(view.id));
            expectSameView(view, rebuilt.get(view.id)!);
          }
        },
      ),
      { numRuns: 2 },
    );
  }, 300_000);
});
