/** The shared test vectors (design/ab-vectors.json), reproduced exactly. */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FlagEntry } from '../model.ts';
import { bucketHash, bucketOf, bucketPercentage } from './bucket.ts';
import { evaluateFlag } from './evaluate.ts';
import { evaluateFlagWithReason } from './evaluate-reason.ts';
import type { TargetingRule } from './rules.ts';

interface BucketVector {
  salt: string;
  user_id: string;
  input: string;
  murmur3_x86_32: number;
  bucket: number;
}

interface EvaluationVector {
  flag: {
    key: string;
    is_active: boolean;
    rules: TargetingRule[];
    rollout_percentage?: number;
    salt?: string | null;
  };
  user_id: string;
  attributes: Record<string, unknown>;
  expected: boolean;
}

// A copy of design/ab-vectors.json kept in the repository, so a clone alone runs the suite;
// where the design folder sits beside the repository, the copy must equal it (last test).
const vectorsUrl = new URL('../../test-vectors/ab-vectors.json', import.meta.url);
const designUrl = new URL('../../../../../shared/design/ab-vectors.json', import.meta.url);
const vectors = JSON.parse(readFileSync(vectorsUrl, 'utf8')) as {
  buckets: BucketVector[];
  evaluations: EvaluationVector[];
};

function flagEntry(wire: EvaluationVector['flag']): FlagEntry {
  return {
    key: wire.key,
    isActive: wire.is_active,
    rules: wire.rules,
    rolloutPercentage: wire.rollout_percentage ?? 100,
    salt: wire.salt ?? null,
    updatedAt: 0,
  };
}

describe('bucket vectors', () => {
  it('has vectors to check', () => {
    expect(vectors.buckets.length).toBeGreaterThan(0);
  });

  it.each(vectors.buckets.map((v) => [v.input, v] as const))('%s', (_input, v) => {
    expect(`${v.salt}:${v.user_id}`).toBe(v.input);
    expect(bucketHash(v.salt, v.user_id)).toBe(v.murmur3_x86_32);
    expect(bucketOf(v.salt, v.user_id)).toBe(Math.round(v.bucket * 100));
    expect(bucketPercentage(v.salt, v.user_id)).toBe(v.bucket);
  });
});

describe('evaluation vectors', () => {
  it('has vectors to check', () => {
    expect(vectors.evaluations.length).toBeGreaterThan(0);
  });

  it.each(vectors.evaluations.map((v) => [v.flag.key, v.user_id, v] as const))(
    '%s for %s',
    (_key, _user, v) => {
      expect(evaluateFlag(flagEntry(v.flag), v.user_id, v.attributes)).toBe(v.expected);
      // The OpenFeature evaluation decides the same; only the reason is added.
      expect(evaluateFlagWithReason(flagEntry(v.flag), v.user_id, v.attributes).value).toBe(
        v.expected,
      );
    },
  );
});

describe('the vectors copy', () => {
  it.runIf(existsSync(designUrl))('equals design/ab-vectors.json', () => {
    expect(readFileSync(vectorsUrl, 'utf8')).toBe(readFileSync(designUrl, 'utf8'));
  });
});
