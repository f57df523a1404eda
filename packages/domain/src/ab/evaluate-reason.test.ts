import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FlagEntry } from '../model.ts';
import { evaluateFlag } from './evaluate.ts';
import { evaluateFlagWithReason, flagVariesByUser, rolloutSplits } from './evaluate-reason.ts';
import { flagEntry } from './flag-entry.fixture.ts';
import type { TargetingRule } from './rules.ts';

const flag = (fields: Partial<FlagEntry>): FlagEntry => flagEntry('checkout.v2', fields);

const proRule: TargetingRule = {
  conditions: [{ attribute: 'plan', operator: 'eq', values: ['pro'] }],
  result: true,
};
const blockDe: TargetingRule = {
  conditions: [{ attribute: 'country', operator: 'eq', values: ['DE'] }],
  result: false,
};

describe('evaluateFlagWithReason', () => {
  it('is DISABLED and false when the flag is off, whatever its rules', () => {
    const off = flag({ isActive: false, rules: [proRule] });
    expect(evaluateFlagWithReason(off, 'u-1', { plan: 'pro' })).toEqual({
      value: false,
      reason: 'DISABLED',
    });
  });

  it('is TARGETING_MATCH with the rule result when a rule decided', () => {
    const f = flag({ rules: [blockDe, proRule], rolloutPercentage: 50 });
    expect(evaluateFlagWithReason(f, 'u-1', { plan: 'pro' })).toEqual({
      value: true,
      reason: 'TARGETING_MATCH',
    });
    expect(evaluateFlagWithReason(f, 'u-1', { plan: 'pro', country: 'DE' })).toEqual({
      value: false,
      reason: 'TARGETING_MATCH',
    });
  });

  it('is SPLIT when a partial rollout decided, with both answers among users', () => {
    const f = flag({ rules: [proRule], rolloutPercentage: 50 });
    const values = new Set<boolean>();
    for (let i = 0; i < 50; i++) {
      const answer = evaluateFlagWithReason(f, `u-${i}`, { plan: 'free' });
      expect(answer.reason).toBe('SPLIT');
      values.add(answer.value);
    }
    expect([...values].sort()).toEqual([false, true]);
  });

  it('is STATIC when no rule matched and the rollout admits everybody or nobody', () => {
    expect(evaluateFlagWithReason(flag({}), 'u-1', {})).toEqual({ value: true, reason: 'STATIC' });
    expect(evaluateFlagWithReason(flag({ rolloutPercentage: 0 }), 'u-1', {})).toEqual({
      value: false,
      reason: 'STATIC',
    });
  });

  it('answers what evaluateFlag answers, for any flag and user', () => {
    const condition = fc.record({
      attribute: fc.constantFrom('plan', 'country', 'user_id'),
      operator: fc.constantFrom('eq' as const, 'neq' as const, 'starts_with' as const),
      values: fc.array(fc.constantFrom('pro', 'DE', 'u-1', 'u'), { maxLength: 2 }),
    });
    const entry = fc.record({
      isActive: fc.boolean(),
      rules: fc.array(fc.record({ conditions: fc.array(condition), result: fc.boolean() }), {
        maxLength: 3,
      }),
      rolloutPercentage: fc.integer({ min: 0, max: 10_000 }).map((n) => n / 100),
      salt: fc.option(fc.string({ maxLength: 8 })),
    });
    fc.assert(
      fc.property(
        entry,
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.constantFrom({}, { plan: 'pro' }, { country: 'DE', plan: 'free' }),
        (fields, userId, attributes) => {
          const f = flag(fields);
          const answer = evaluateFlagWithReason(f, userId, attributes);
          expect(answer.value).toBe(evaluateFlag(f, userId, attributes));
          // A flag that does not vary by user is never a rule's or the rollout's decision.
          if (!flagVariesByUser(f)) expect(['STATIC', 'DISABLED']).toContain(answer.reason);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('rolloutSplits', () => {
  it('is true strictly between 0 and 100 percent, at two decimals', () => {
    expect([0, 0.001, 0.01, 50, 99.99, 99.996, 100].map(rolloutSplits)).toEqual([
      false,
      false,
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});
