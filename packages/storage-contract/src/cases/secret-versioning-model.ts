/**
 * Property test: random sequences of set / delete / delete-version through the domain's rules
 * on a real store give the same current value and version list as a simple model.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DomainError,
  deleteSecret,
  deleteSecretVersion,
  secretContext,
  setSecret,
} from '@svc/domain';
import { fakeSealer, seed, type Harness } from '../fixtures.ts';

type Op =
  | { kind: 'set'; key: string; value: string }
  | { kind: 'delete'; key: string }
  | { kind: 'deleteVersion'; key: string; version: number };

/** The model: every version ever made, and which remain. */
class Model {
  readonly max = new Map<string, number>();
  readonly remaining = new Map<string, Map<number, string>>();

  apply(op: Op): boolean {
    const versions = this.remaining.get(op.key) ?? new Map<number, string>();
    if (op.kind === 'set') {
      const version = (this.max.get(op.key) ?? 0) + 1;
      this.max.set(op.key, version);
      versions.set(version, op.value);
      this.remaining.set(op.key, versions);
      return true;
    }
    if (op.kind === 'delete') {
      if (versions.size === 0) return false;
      this.remaining.delete(op.key);
      return true;
    }
    if (!versions.delete(op.version)) return false;
    if (versions.size === 0) this.remaining.delete(op.key);
    return true;
  }
}

const keys = fc.constantFrom('a', 'b.c');
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      key: keys,
      value: fc.string({ maxLength: 8 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: keys }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('deleteVersion' as const),
      key: keys,
      version: fc.integer({ min: 1, max: 6 }),
    }),
  },
);

export function describeSecretVersioningModel(h: Harness): void {
  describe('secret versioning against a model', () => {
    it("gives the model's current value and version list for random operation sequences", async () => {
      const s = await seed(h.store);
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 20 }), async (ops) => {
          // A fresh service per run keeps runs apart on one database.
          const scope = { projectId: s.projectScope.projectId, serviceId: `run-${run++}` };
          const model = new Model();
          for (const o of ops) {
            const expected = model.apply(o);
            let applied = true;
            try {
              await h.store.transaction(async (tx) => {
                if (o.kind === 'set')
                  await setSecret(tx, fakeSealer, scope, {
                    key: o.key,
                    value: o.value,
                    type: 'text',
                  });
                else if (o.kind === 'delete') await deleteSecret(tx, scope, o.key);
                else await deleteSecretVersion(tx, scope, o.key, o.version);
              });
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
              applied = false;
            }
            expect(applied).toBe(expected);
          }
          for (const key of ['a', 'b.c']) {
            const stored = await h.store.listSecretVersions(scope, key);
            const modelled = [...(model.remaining.get(key) ?? new Map()).entries()].sort(
              (x, y) => x[0] - y[0],
            );
            expect(stored.map((v) => v.version)).toEqual(modelled.map(([v]) => v));
            const current = (await h.store.listSecrets(scope)).find((v) => v.key === key);
            expect(await h.store.findSecret(scope, key)).toStrictEqual(current);
            const last = modelled.at(-1);
            if (!last) {
              expect(current).toBeUndefined();
            } else {
              expect(current?.version).toBe(last[0]);
              expect(fakeSealer.open(current!.sealed, secretContext(scope, current!))).toBe(
                last[1],
              );
            }
          }
        }),
        { numRuns: 40 },
      );
    }, 60_000);
  });
}
