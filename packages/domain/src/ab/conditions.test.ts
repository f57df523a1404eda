import { describe, expect, it } from 'vitest';
import { matchesCondition, stringForm, toNumber, type Attributes } from './conditions.ts';
import type { Condition, Operator } from './rules.ts';

function holds(attribute: unknown, operator: Operator, values: string[], userId = 'u-1'): boolean {
  const attributes: Attributes = attribute === undefined ? {} : { a: attribute };
  return matchesCondition({ attribute: 'a', operator, values }, userId, attributes);
}

describe('string form', () => {
  it('is the string itself, String(n) for numbers, true/false for booleans', () => {
    expect(stringForm('DE')).toBe('DE');
    expect(stringForm(42)).toBe('42');
    expect(stringForm(33.5)).toBe('33.5');
    expect(stringForm(-0)).toBe('0');
    expect(stringForm(1e21)).toBe('1e+21');
    expect(stringForm(true)).toBe('true');
    expect(stringForm(false)).toBe('false');
    expect(stringForm(null)).toBeUndefined();
    expect(stringForm({})).toBeUndefined();
    expect(stringForm([])).toBeUndefined();
  });
});

describe('toNumber', () => {
  it.each([
    [42, 42],
    [33.5, 33.5],
    ['41', 41],
    ['-3.5', -3.5],
    ['+7', 7],
    ['.5', 0.5],
    ['5.', 5],
    ['1e3', 1000],
    ['1E-2', 0.01],
    ['007', 7],
  ])('reads %j as %d', (input, expected) => {
    expect(toNumber(input)).toBe(expected);
  });

  it.each([
    '',
    ' ',
    ' 42',
    '42 ',
    '0x10',
    '0b1',
    '0o7',
    '1_000',
    'Infinity',
    '-Infinity',
    'NaN',
    '1e999',
    'abc',
    '4 2',
    '.',
    'e3',
    '--1',
    '1,5',
  ])('does not read %j as a number', (input) => {
    expect(toNumber(input)).toBeUndefined();
  });

  it('does not read booleans, null, objects or non-finite numbers', () => {
    for (const value of [true, false, null, undefined, {}, [1], Infinity, NaN]) {
      expect(toNumber(value)).toBeUndefined();
    }
  });
});

describe('matchesCondition', () => {
  it('eq and in: any value equals the string form', () => {
    for (const op of ['eq', 'in'] as const) {
      expect(holds('DE', op, ['FR', 'DE'])).toBe(true);
      expect(holds('DE', op, ['FR'])).toBe(false);
      expect(holds('de', op, ['DE'])).toBe(false);
      expect(holds(42, op, ['42'])).toBe(true);
      expect(holds(42, op, ['42.0'])).toBe(false);
      expect(holds(false, op, ['false'])).toBe(true);
      expect(holds(true, op, ['1'])).toBe(false);
    }
  });

  it('neq and not_in: no value equals the string form', () => {
    for (const op of ['neq', 'not_in'] as const) {
      expect(holds('DE', op, ['FR', 'US'])).toBe(true);
      expect(holds('DE', op, ['FR', 'DE'])).toBe(false);
      expect(holds(false, op, ['false'])).toBe(false);
      expect(holds(7, op, ['7'])).toBe(false);
    }
  });

  it('contains, starts_with, ends_with: any value', () => {
    expect(holds('ann@acme.com', 'contains', ['@example.org', '@acme'])).toBe(true);
    expect(holds('ann@acme.com', 'contains', ['@example.org'])).toBe(false);
    expect(holds('ann@acme.com', 'starts_with', ['bob', 'ann'])).toBe(true);
    expect(holds('ann@acme.com', 'starts_with', ['acme'])).toBe(false);
    expect(holds('ann@acme.com', 'ends_with', ['.org', '.com'])).toBe(true);
    expect(holds('ann@acme.com', 'ends_with', ['acme'])).toBe(false);
    expect(holds(12345, 'starts_with', ['123'])).toBe(true);
    expect(holds(true, 'contains', ['ru'])).toBe(true);
  });

  it('a missing, null, object or array attribute matches only neq and not_in', () => {
    const operators: Operator[] = [
      'eq',
      'neq',
      'in',
      'not_in',
      'contains',
      'starts_with',
      'ends_with',
      'gt',
      'gte',
      'lt',
      'lte',
      'semver_gt',
      'semver_lt',
      'semver_eq',
    ];
    for (const absent of [undefined, null, { x: 1 }, [], ['1'], ['1.0.0']]) {
      for (const op of operators) {
        const values = op.startsWith('semver') ? ['1.0.0'] : ['1', ''];
        expect(holds(absent, op, values), `${JSON.stringify(absent)} ${op}`).toBe(
          op === 'neq' || op === 'not_in',
        );
      }
    }
  });

  it('inherited properties are not attributes', () => {
    const attributes: Attributes = Object.create({ plan: 'pro' });
    const plan = (operator: Operator) =>
      matchesCondition({ attribute: 'plan', operator, values: ['pro'] }, 'u', attributes);
    expect(plan('eq')).toBe(false);
    expect(plan('neq')).toBe(true);
    expect(
      matchesCondition({ attribute: 'toString', operator: 'contains', values: [''] }, 'u', {}),
    ).toBe(false);
  });

  it('user_id is the request user id, whatever the attributes say', () => {
    const c: Condition = { attribute: 'user_id', operator: 'eq', values: ['u-42'] };
    expect(matchesCondition(c, 'u-42', {})).toBe(true);
    expect(matchesCondition(c, 'u-7', { user_id: 'u-42' })).toBe(false);
    expect(
      matchesCondition(
        { attribute: 'user_id', operator: 'starts_with', values: ['u-'] },
        'u-7',
        {},
      ),
    ).toBe(true);
  });

  it('gt, gte, lt, lte compare numbers and numeric strings against values[0]', () => {
    expect(holds(30, 'gt', ['29'])).toBe(true);
    expect(holds(30, 'gt', ['30'])).toBe(false);
    expect(holds(30, 'gte', ['30'])).toBe(true);
    expect(holds('30', 'gte', ['30.0'])).toBe(true);
    expect(holds(30, 'lt', ['30.5'])).toBe(true);
    expect(holds(30, 'lte', ['30'])).toBe(true);
    expect(holds(30, 'lte', ['29.99'])).toBe(false);
    // Numerically, not as text: '9' < '10'.
    expect(holds('9', 'lt', ['10'])).toBe(true);
    expect(holds(-1, 'lt', ['0'])).toBe(true);
    // Only values[0] counts.
    expect(holds(5, 'gt', ['10', '1'])).toBe(false);
  });

  it('numeric operators never match what is not a number', () => {
    for (const op of ['gt', 'gte', 'lt', 'lte'] as const) {
      expect(holds('abc', op, ['0'])).toBe(false);
      expect(holds('', op, ['0'])).toBe(false);
      expect(holds(true, op, ['0'])).toBe(false);
      expect(holds(' 5', op, ['5'])).toBe(false);
      expect(holds(5, op, ['five'])).toBe(false);
      expect(holds(5, op, [''])).toBe(false);
      expect(holds(5, op, [])).toBe(false);
    }
  });

  it('semver operators compare versions against values[0]', () => {
    expect(holds('1.10.3', 'semver_gt', ['1.9.9'])).toBe(true);
    expect(holds('1.9.9', 'semver_lt', ['1.10.3'])).toBe(true);
    expect(holds('2.0.0-beta.1', 'semver_lt', ['2.0.0'])).toBe(true);
    expect(holds('2.0.0-beta.1', 'semver_gt', ['2.0.0-alpha.9'])).toBe(true);
    expect(holds('2.0.0-beta.2', 'semver_lt', ['2.0.0-beta.11'])).toBe(true);
    expect(holds('2.0.0', 'semver_gt', ['2.0.0-rc.1'])).toBe(true);
    expect(holds('1.2.0', 'semver_eq', ['1.2.0'])).toBe(true);
    expect(holds('1.2.0', 'semver_eq', ['1.2.0-rc.1'])).toBe(false);
    expect(holds('1.2.0', 'semver_eq', ['1.3.0', '1.2.0'])).toBe(false);
  });

  it('semver answers stay the same when versions repeat, and for long versions', () => {
    // Parsed versions are memoized: the second and later answers come from the memo.
    for (let i = 0; i < 3; i++) {
      expect(holds('1.10.3', 'semver_gt', ['1.9.9'])).toBe(true);
      expect(holds('not-a-version', 'semver_lt', ['1.9.9'])).toBe(false);
    }
    // Past 64 characters a version is parsed each time, never kept.
    const long = `1.0.0-${'a'.repeat(100)}`;
    for (let i = 0; i < 2; i++) {
      expect(holds(long, 'semver_lt', ['1.0.0'])).toBe(true);
      expect(holds(long, 'semver_gt', [`1.0.0-${'a'.repeat(99)}`])).toBe(true);
    }
  });

  it('semver operators never match what is not a version', () => {
    for (const op of ['semver_gt', 'semver_lt', 'semver_eq'] as const) {
      expect(holds('not-a-version', op, ['1.0.0'])).toBe(false);
      expect(holds('v1.0.0', op, ['1.0.0'])).toBe(false);
      expect(holds('1.0.0+build', op, ['1.0.0'])).toBe(false);
      expect(holds('1.0', op, ['1.0.0'])).toBe(false);
      expect(holds(1.5, op, ['1.0.0'])).toBe(false);
      expect(holds('1.0.0', op, ['latest'])).toBe(false);
      expect(holds('1.0.0', op, [])).toBe(false);
    }
  });
});
