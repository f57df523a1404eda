import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FlagEntry } from '../model.ts';
import { BUCKET_COUNT, bucketHash, bucketOf, bucketSalt, inRollout } from './bucket.ts';
import { evaluateFlag } from './evaluate.ts';
import { murmur3x86_32 } from './murmur3.ts';

const USERS = 100_000;

function flag(key: string, rolloutPercentage: number, salt: string | null = null): FlagEntry {
  return { key, isActive: true, rules: [], rolloutPercentage, salt, updatedAt: 0 };
}

describe('bucketOf', () => {
  it('is an integer in 0..9999, the same every time', () => {
    for (let i = 0; i < 1000; i++) {
      const b = bucketOf('checkout.v2', `u-${i}`);
      expect(Number.isInteger(b) && b >= 0 && b < BUCKET_COUNT).toBe(true);
      expect(bucketOf('checkout.v2', `u-${i}`)).toBe(b);
    }
  });

  it('hashes the UTF-8 bytes, so non-ASCII ids are stable across implementations', () => {
    expect(bucketOf('', 'émile-756488')).toBe(8480);
    expect(bucketOf('checkout.v2', '用户914869')).toBe(9812);
  });
});

describe('bucketSalt', () => {
  it('is the salt, or the flag key when the salt is null or empty', () => {
    expect(bucketSalt({ key: 'checkout.v2', salt: 'spring-sale' })).toBe('spring-sale');
    expect(bucketSalt({ key: 'checkout.v2', salt: null })).toBe('checkout.v2');
    expect(bucketSalt({ key: 'checkout.v2', salt: '' })).toBe('checkout.v2');
  });

  it('makes a flag without salt bucket like one salted with its own key', () => {
    for (let i = 0; i < 2000; i++) {
      const user = `user-${i}`;
      const salted = evaluateFlag(flag('search.beta', 37.5, 'search.beta'), user, {});
      expect(evaluateFlag(flag('search.beta', 37.5, null), user, {})).toBe(salted);
      expect(evaluateFlag(flag('search.beta', 37.5, ''), user, {})).toBe(salted);
    }
  });
});

describe('inRollout', () => {
  it('admits nobody at 0% and everybody at 100%', () => {
    const buckets = Array.from({ length: BUCKET_COUNT }, (_, bucket) => bucket);
    expect(buckets.some((bucket) => inRollout(bucket, 0))).toBe(false);
    expect(buckets.every((bucket) => inRollout(bucket, 100))).toBe(true);
  });

  it('is exact at every two-decimal percentage: bucket k-1 is in, bucket k is out', () => {
    for (let k = 1; k < BUCKET_COUNT; k++) {
      // Parse the two-decimal literal, as a percentage arrives from JSON.
      const p = Number(`${Math.floor(k / 100)}.${String(k % 100).padStart(2, '0')}`);
      if (!inRollout(k - 1, p) || inRollout(k, p)) throw new Error(`inexact at ${p}%`);
    }
  });

  it('splits exactly at 12.34%', () => {
    expect(inRollout(1233, 12.34)).toBe(true);
    expect(inRollout(1234, 12.34)).toBe(false);
    let user = 0;
    while (bucketOf('edge', `u-${user}`) !== 1234) user++;
    const id = `u-${user}`;
    expect(evaluateFlag(flag('edge', 12.34), id, {})).toBe(false);
    expect(evaluateFlag(flag('edge', 12.35), id, {})).toBe(true);
  });

  it('answers 0% false and 100% true for real users', () => {
    const users = Array.from({ length: 5000 }, (_, i) => `u-${i}`);
    expect(users.some((user) => evaluateFlag(flag('all.or.nothing', 0), user, {}))).toBe(false);
    expect(users.every((user) => evaluateFlag(flag('all.or.nothing', 100), user, {}))).toBe(true);
  });
});

describe('distribution', () => {
  it('puts 24.5..25.5% of 100,000 users in a 25% rollout', () => {
    const rollout = flag('fair.flag', 25);
    let inside = 0;
    for (let i = 0; i < USERS; i++) if (evaluateFlag(rollout, `user-${i}`, {})) inside++;
    const share = inside / USERS;
    expect(share).toBeGreaterThanOrEqual(0.245);
    expect(share).toBeLessThanOrEqual(0.255);
  });

  it('buckets two flags with different salts independently (chi-square, p > 0.001)', () => {
    const a = flag('exp.a', 50, 'salt-a');
    const b = flag('exp.b', 50, 'salt-b');
    // counts[2 * inA + inB]
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < USERS; i++) {
      const user = `user-${i}`;
      const cell = (evaluateFlag(a, user, {}) ? 2 : 0) + (evaluateFlag(b, user, {}) ? 1 : 0);
      counts[cell]!++;
    }
    const [n00, n01, n10, n11] = counts as [number, number, number, number];
    const rows = [n00 + n01, n10 + n11];
    const cols = [n00 + n10, n01 + n11];
    let chiSquare = 0;
    for (let r = 0; r < 2; r++) {
      for (let c = 0; c < 2; c++) {
        const expected = (rows[r]! * cols[c]!) / USERS;
        chiSquare += (counts[2 * r + c]! - expected) ** 2 / expected;
      }
    }
    // 10.83 is the chi-square critical value for 1 degree of freedom at p = 0.001.
    expect(chiSquare).toBeLessThan(10.83);
  });
});

describe('bucketHash encoding', () => {
  it('hashes exactly the UTF-8 bytes of "{salt}:{user_id}", for any text and length', () => {
    const utf8 = new TextEncoder();
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.string({ unit: 'binary', maxLength: 300 }),
        (salt, userId) => {
          expect(bucketHash(salt, userId)).toBe(murmur3x86_32(utf8.encode(`${salt}:${userId}`)));
        },
      ),
      { numRuns: 150 },
    );
    // A long ASCII text after a non-ASCII one: the reused buffer holds no stale bytes.
    expect(bucketHash('s', 'é'.repeat(900))).toBe(
      murmur3x86_32(utf8.encode(`s:${'é'.repeat(900)}`)),
    );
    expect(bucketHash('s', 'a'.repeat(3000))).toBe(
      murmur3x86_32(utf8.encode(`s:${'a'.repeat(3000)}`)),
    );
  }, 30_000);
});
