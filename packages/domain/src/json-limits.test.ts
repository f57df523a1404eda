import { describe, expect, it } from 'vitest';
import { fieldPath, findJsonFlaw, JSON_MAX_DEPTH } from './json-limits.ts';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? { a: value } : [value];
  return value;
};

describe('findJsonFlaw', () => {
  it('accepts JSON nested exactly as deep as allowed, and plain values', () => {
    expect(findJsonFlaw(nested(JSON_MAX_DEPTH))).toBeUndefined();
    for (const v of [null, true, 0, 'text', '😀', [], {}]) expect(findJsonFlaw(v)).toBeUndefined();
  });

  it('names where a value nests one level too deep', () => {
    const flaw = findJsonFlaw({ value: nested(JSON_MAX_DEPTH) });
    expect(flaw?.message).toBe(`nests deeper than ${JSON_MAX_DEPTH} levels`);
    expect(flaw?.path[0]).toBe('value');
    expect(flaw?.path).toHaveLength(JSON_MAX_DEPTH);
  });

  it('checks a million levels without recursion', () => {
    const deep = JSON.parse('['.repeat(1_000_000) + ']'.repeat(1_000_000));
    expect(findJsonFlaw(deep, 64)?.path).toHaveLength(64);
  });

  it('finds lone surrogates in strings and in member names', () => {
    expect(findJsonFlaw({ a: ['ok', 'bad\ud800'] })).toEqual({
      path: ['a', 1],
      message: 'is not well-formed Unicode (a lone surrogate)',
    });
    expect(findJsonFlaw({ ['\udc00x']: 1 })?.path).toEqual(['\udc00x']);
    expect(findJsonFlaw('pair \ud83d\ude00 is fine')).toBeUndefined();
  });
});

describe('fieldPath', () => {
  it('writes paths as problem+json fields name them', () => {
    expect(fieldPath(['rules', 0, 'conditions', 1, 'values'], 'body')).toBe(
      'rules[0].conditions[1].values',
    );
    expect(fieldPath([], 'body')).toBe('body');
  });
});
