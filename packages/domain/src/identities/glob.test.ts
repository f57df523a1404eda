import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { matchesAny, matchesPattern } from './glob.ts';

describe('matchesPattern', () => {
  it.each([
    ['role/checkout-*', 'role/checkout-api', true],
    ['role/checkout-*', 'role/checkout-', true],
    ['role/checkout-*', 'role/payments-api', false],
    ['repo:acme/*:ref:refs/heads/main', 'repo:acme/web:ref:refs/heads/main', true],
    ['repo:acme/*:ref:refs/heads/main', 'repo:acme/web:ref:refs/heads/dev', false],
    ['repo:acme/*:ref:refs/heads/main', 'repo:other/web:ref:refs/heads/main', false],
    ['*', '', true],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXcYYb', false],
    ['*.example.com', 'x.y.example.com', true],
    ['a.c', 'abc', false],
    ['a?c', 'abc', false],
    ['[ab]', 'a', false],
  ])('%s against %s is %s', (pattern, text, expected) => {
    expect(matchesPattern(pattern, text)).toBe(expected);
  });

  it('agrees with an anchored regular expression of the same glob', () => {
    const toRegExp = (glob: string) =>
      new RegExp(
        `^${glob
          .split('*')
          .map((s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
          .join('.*')}$`,
        's',
      );
    const chars = fc.constantFrom('a', 'b', '*', ':', '/');
    fc.assert(
      fc.property(
        fc.string({ unit: chars, maxLength: 8 }),
        fc.string({ unit: chars, maxLength: 12 }),
        (glob, text) => {
          const t = text.replaceAll('*', 'x');
          expect(matchesPattern(glob, t)).toBe(toRegExp(glob).test(t));
        },
      ),
    );
  });
});

describe('matchesAny', () => {
  it('is true when one pattern matches, false for an empty list', () => {
    expect(matchesAny(['x', 'arn:*:role/app'], 'arn:aws:role/app')).toBe(true);
    expect(matchesAny([], 'anything')).toBe(false);
  });
});
