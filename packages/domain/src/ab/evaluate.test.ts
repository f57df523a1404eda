import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FlagEntry } from '../model.ts';
import { bucketOf } from './bucket.ts';
import { evaluateFlag } from './evaluate.ts';
import { flagEntry } from './flag-entry.fixture.ts';
import { OPERATORS, type TargetingRule } from './rules.ts';

const flag = (patch: Partial<FlagEntry> = {}): FlagEntry => flagEntry('checkout.v2', patch);

const fromDE: TargetingRule = {
  conditions: [{ attribute: 'country', operator: 'eq', values: ['DE'] }],
  result: true,
};

describe('evaluateFlag', () => {
  it('is false for an unknown flag', () => {
    expect(evaluateFlag(undefined, 'u-1', {})).toBe(false);
  });

  it('is false for an inactive flag, whatever its rules and rollout say', () => {
    expect(evaluateFlag(flag({ isActive: false, rules: [fromDE] }), 'u-1', { country: 'DE' })).toBe(
      false,
    );
    expect(evaluateFlag(flag({ isActive: false }), 'u-1', {})).toBe(false);
  });

  it('lets the first matching rule decide, before the rollout', () => {
    const rules: TargetingRule[] = [
      { conditions: [{ attribute: 'plan', operator: 'eq', values: ['free'] }], result: false },
      fromDE,
      { conditions: [{ attribute: 'country', operator: 'eq', values: ['DE'] }], result: false },
    ];
    expect(evaluateFlag(flag({ rules, rolloutPercentage: 0 }), 'u', { country: 'DE' })).toBe(true);
    expect(
      evaluateFlag(flag({ rules, rolloutPercentage: 100 }), 'u', { country: 'DE', plan: 'free' }),
    ).toBe(false);
  });

  it('needs every condition of a rule to hold', () => {
    const rule: TargetingRule = {
      conditions: [
        { attribute: 'country', operator: 'eq', values: ['DE'] },
        { attribute: 'age', operator: 'gte', values: ['18'] },
      ],
      result: true,
    };
    const f = flag({ rules: [rule], rolloutPercentage: 0 });
    expect(evaluateFlag(f, 'u', { country: 'DE', age: 18 })).toBe(true);
    expect(evaluateFlag(f, 'u', { country: 'DE', age: '17' })).toBe(false);
    expect(evaluateFlag(f, 'u', { country: 'DE' })).toBe(false);
  });

  it('falls back to the rollout when no rule matches', () => {
    const f = flag({ rules: [fromDE], rolloutPercentage: 50 });
    for (let i = 0; i < 200; i++) {
      const user = `u-${i}`;
      expect(evaluateFlag(f, user, { country: 'FR' })).toBe(bucketOf('checkout.v2', user) < 5000);
    }
  });
});

// Small pools so that generated conditions often match generated attributes.
const attributeNames = ['country', 'plan', 'age', 'app_version', 'beta', 'user_id'];
const attributeValues = fc.oneof(
  fc.constantFrom('DE', 'FR', 'pro', '2.0.0', '1.10.3', '2.0.0-beta.1', '41', 'u-1', ''),
  fc.integer({ min: -5, max: 100 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.constant({}),
  fc.constant([]),
);
const conditionValue = fc.constantFrom(
  'DE',
  'pro',
  '2.0.0',
  '1.10.3',
  '2.0.0-beta.1',
  '41',
  'u',
  'true',
  '',
);
const rule = fc.record({
  conditions: fc.array(
    fc.record({
      attribute: fc.constantFrom(...attributeNames),
      operator: fc.constantFrom(...OPERATORS),
      values: fc.array(conditionValue, { minLength: 1, maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  result: fc.boolean(),
});
const hundredths = fc.integer({ min: 0, max: 10_000 });
const arbitraryFlag = fc.record({
  key: fc.constantFrom('checkout.v2', 'search.beta', 'exp-42'),
  isActive: fc.boolean(),
  rules: fc.array(rule, { maxLength: 4 }),
  rolloutPercentage: hundredths.map((k) => k / 100),
  salt: fc.oneof(fc.constant(null), fc.constant(''), fc.string()),
  updatedAt: fc.constant(0),
});
const userId = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });
const attributes = fc.dictionary(fc.constantFrom(...attributeNames), attributeValues, {
  maxKeys: 6,
});

describe('evaluateFlag properties', () => {
  it('is deterministic: the same flag, user and attributes give the same answer', () => {
    fc.assert(
      fc.property(arbitraryFlag, userId, attributes, (f, user, attrs) => {
        const first = evaluateFlag(f, user, attrs);
        expect(evaluateFlag(structuredClone(f), user, structuredClone(attrs))).toBe(first);
      }),
      { numRuns: 500 },
    );
  });

  it('is monotonic in the rollout: raising it never turns true into false', () => {
    fc.assert(
      fc.property(
        arbitraryFlag,
        hundredths,
        hundredths,
        userId,
        attributes,
        (f, x, y, user, attrs) => {
          const [low, high] = x <= y ? [x, y] : [y, x];
          const before = evaluateFlag({ ...f, rolloutPercentage: low / 100 }, user, attrs);
          const after = evaluateFlag({ ...f, rolloutPercentage: high / 100 }, user, attrs);
          expect(!before || after).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
