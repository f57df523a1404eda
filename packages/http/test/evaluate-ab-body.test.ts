import { describe, expect, it } from 'vitest';
import { ValidationError } from '@svc/domain';
import { parseEvaluateAbBody } from '../src/evaluate-ab-body.ts';

const body = (patch: Record<string, unknown> = {}) => ({
  flags: ['checkout.v2'],
  user_id: 'u-123',
  ...patch,
});

/** The ValidationError's field, or a failure when something else happened. */
function failingField(requestBody: unknown): string {
  try {
    parseEvaluateAbBody(requestBody);
  } catch (error) {
    if (error instanceof ValidationError) return error.field;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('evaluate-ab body', () => {
  it('needs a JSON object', () => {
    for (const bad of [null, undefined, 'x', 42, [], [body()]])
      expect(failingField(bad)).toBe('body');
  });

  it('needs flags: a list of 1..100 flag keys', () => {
    expect(failingField(body({ flags: undefined }))).toBe('flags');
    expect(failingField(body({ flags: 'checkout.v2' }))).toBe('flags');
    expect(failingField(body({ flags: [] }))).toBe('flags');
    expect(failingField(body({ flags: Array(101).fill('a') }))).toBe('flags');
    expect(failingField(body({ flags: ['a', 'b', 'c', 7] }))).toBe('flags[3]');
    expect(failingField(body({ flags: ['a', ''] }))).toBe('flags[1]');
    expect(failingField(body({ flags: ['a..b'] }))).toBe('flags[0]');
    expect(failingField(body({ flags: ['with space'] }))).toBe('flags[0]');
    expect(failingField(body({ flags: ['a'.repeat(257)] }))).toBe('flags[0]');
    expect(parseEvaluateAbBody(body({ flags: Array(100).fill('a'.repeat(256)) }))).toBeDefined();
  });

  it('needs user_id: a string of 1..256 characters', () => {
    expect(failingField(body({ user_id: undefined }))).toBe('user_id');
    expect(failingField(body({ user_id: 42 }))).toBe('user_id');
    expect(failingField(body({ user_id: '' }))).toBe('user_id');
    expect(failingField(body({ user_id: 'x'.repeat(257) }))).toBe('user_id');
    expect(failingField(body({ user_id: 'bad\ud800' }))).toBe('user_id');
    expect(parseEvaluateAbBody(body({ user_id: 'x'.repeat(256) }))).toBeDefined();
    // Characters, not UTF-16 units: 256 emoji are 512 units.
    expect(parseEvaluateAbBody(body({ user_id: '😀'.repeat(256) }))).toBeDefined();
    expect(failingField(body({ user_id: '😀'.repeat(257) }))).toBe('user_id');
  });

  it('takes optional attributes: an object of at most 50 entries with names of 1..256 characters', () => {
    expect(failingField(body({ attributes: null }))).toBe('attributes');
    expect(failingField(body({ attributes: [] }))).toBe('attributes');
    expect(failingField(body({ attributes: 'DE' }))).toBe('attributes');
    const many = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, i]));
    expect(failingField(body({ attributes: many(51) }))).toBe('attributes');
    expect(failingField(body({ attributes: { '': 1 } }))).toBe('attributes');
    expect(failingField(body({ attributes: { ['n'.repeat(257)]: 1 } }))).toBe('attributes');
    expect(parseEvaluateAbBody(body({ attributes: many(50) }))).toBeDefined();
    expect(parseEvaluateAbBody(body({ attributes: { nested: { any: ['json'] } } }))).toBeDefined();
  });

  it('names the first failing field in order: flags, user_id, attributes', () => {
    expect(failingField({ flags: [], user_id: '', attributes: null })).toBe('flags');
    expect(failingField({ flags: ['a'], user_id: '', attributes: null })).toBe('user_id');
  });
});

describe('evaluate-ab body: v1.1 limits', () => {
  it('keeps each flag key once, in first-seen order', () => {
    expect(parseEvaluateAbBody(body({ flags: ['b', 'a', 'b', 'a', 'c'] })).flags).toEqual([
      'b',
      'a',
      'c',
    ]);
    expect(parseEvaluateAbBody(body({ flags: Array(100).fill('x') })).flags).toEqual(['x']);
  });

  it('takes string attribute values of at most 1024 characters', () => {
    const at = (value: unknown) => body({ attributes: { v: value } });
    expect(parseEvaluateAbBody(at('x'.repeat(1024))).attributes).toEqual({ v: 'x'.repeat(1024) });
    expect(failingField(at('x'.repeat(1025)))).toBe('attributes.v');
    // Characters, as JSON Schema's maxLength counts them: 1024 emoji are 2048 UTF-16 units.
    expect(parseEvaluateAbBody(at('😀'.repeat(1024)))).toBeDefined();
    expect(failingField(at('😀'.repeat(1025)))).toBe('attributes.v');
    // Objects and arrays only ever match neq/not_in: their size costs nothing to evaluate.
    expect(parseEvaluateAbBody(at(['y'.repeat(5000)]))).toBeDefined();
  });
});
