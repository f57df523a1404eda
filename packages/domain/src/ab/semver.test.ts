import { describe, expect, it } from 'vitest';
import { compareSemver, parseSemver } from './semver.ts';

function order(a: string, b: string): number {
  const x = parseSemver(a);
  const y = parseSemver(b);
  if (!x || !y) throw new Error(`not versions: ${a}, ${b}`);
  return Math.sign(compareSemver(x, y));
}

describe('parseSemver', () => {
  it.each([
    '0.0.0',
    '1.2.3',
    '10.20.30',
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-0.3.7',
    '1.0.0-x.7.z.92',
    '1.0.0-x-y',
    '1.0.0--',
    '1.0.0-0a',
    '99999999999999999999.0.0',
  ])('accepts %s', (text) => {
    expect(parseSemver(text)).toBeDefined();
  });

  it.each([
    '',
    '1',
    '1.2',
    '1.2.3.4',
    'v1.2.3',
    'V1.2.3',
    '1.2.3+build.1',
    '1.2.3-rc.1+build',
    ' 1.2.3',
    '1.2.3 ',
    '01.2.3',
    '1.02.3',
    '1.2.03',
    '1.2.3-',
    '1.2.3-01',
    '1.2.3-rc..1',
    '1.2.3-rc.',
    '1.2.3-r_c',
    '1.2.x',
    '-1.2.3',
    'not-a-version',
  ])('rejects %j', (text) => {
    expect(parseSemver(text)).toBeUndefined();
  });
});

describe('compareSemver', () => {
  it('orders by major, minor, patch numerically (not as text)', () => {
    expect(order('1.10.3', '1.9.9')).toBe(1);
    expect(order('1.2.0', '1.10.3')).toBe(-1);
    expect(order('2.0.0', '10.0.0')).toBe(-1);
    expect(order('1.2.3', '1.2.3')).toBe(0);
    expect(order('100000000000000000001.0.0', '100000000000000000000.0.0')).toBe(1);
  });

  it('sorts a pre-release before its release, after the previous release', () => {
    expect(order('2.0.0-beta.1', '2.0.0')).toBe(-1);
    expect(order('2.0.0', '2.0.0-beta.1')).toBe(1);
    expect(order('2.0.0-beta.1', '1.99.99')).toBe(1);
  });

  it('follows the SemVer 2.0.0 precedence example', () => {
    const chain = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
    ];
    for (let i = 0; i < chain.length; i++) {
      for (let j = 0; j < chain.length; j++) {
        expect(order(chain[i]!, chain[j]!)).toBe(Math.sign(i - j));
      }
    }
  });

  it('compares alphanumeric identifiers in ASCII order and numeric ones below them', () => {
    expect(order('1.0.0-Beta', '1.0.0-alpha')).toBe(-1);
    expect(order('1.0.0-9', '1.0.0-a')).toBe(-1);
    expect(order('1.0.0-10', '1.0.0-9')).toBe(1);
    expect(order('1.0.0-1a', '1.0.0-1')).toBe(1);
  });
});
