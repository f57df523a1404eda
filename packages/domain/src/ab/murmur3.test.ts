import { describe, expect, it } from 'vitest';
import { murmur3x86_32 } from './murmur3.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);
const bytes = (...values: number[]) => new Uint8Array(values);

describe('murmur3x86_32', () => {
  // Reference answers of the C implementation (SMHasher's MurmurHash3_x86_32).
  it.each([
    ['empty, seed 0', bytes(), 0, 0],
    ['empty, seed 1', bytes(), 1, 0x514e28b7],
    ['empty, seed 0xffffffff', bytes(), 0xffffffff, 0x81f16f39],
    ['hello', utf8('hello'), 0, 613153351],
    ['4 zero bytes', bytes(0, 0, 0, 0), 0, 0x2362f9de],
    ['3 zero bytes (tail 3)', bytes(0, 0, 0), 0, 0x85f0b427],
    ['2 zero bytes (tail 2)', bytes(0, 0), 0, 0x30f4c306],
    ['1 zero byte (tail 1)', bytes(0), 0, 0x514e28b7],
    ['4 bytes 0xff (sign bits)', bytes(0xff, 0xff, 0xff, 0xff), 0, 0x76293b50],
    ['21 43 65 87', bytes(0x21, 0x43, 0x65, 0x87), 0, 0xf55b516b],
    ['21 43 65 (tail 3)', bytes(0x21, 0x43, 0x65), 0, 0x7e4a8634],
    ['21 43 (tail 2)', bytes(0x21, 0x43), 0, 0xa0f7b07a],
    ['21 (tail 1)', bytes(0x21), 0, 0x72661cf4],
    ['aaaa', utf8('aaaa'), 0x9747b28c, 0x5a97808a],
    ['aaa', utf8('aaa'), 0x9747b28c, 0x283e0130],
    ['aa', utf8('aa'), 0x9747b28c, 0x5d211726],
    ['a', utf8('a'), 0x9747b28c, 0x7fa09ea6],
    ['abcd', utf8('abcd'), 0x9747b28c, 0xf0478627],
    ['abc', utf8('abc'), 0x9747b28c, 0xc84a62dd],
    ['ab', utf8('ab'), 0x9747b28c, 0x74875592],
    ['Hello, world! (13 bytes)', utf8('Hello, world!'), 0x9747b28c, 0x24884cba],
    [
      'the quick brown fox (43 bytes)',
      utf8('The quick brown fox jumps over the lazy dog'),
      0x9747b28c,
      0x2fa826cd,
    ],
  ])('%s', (_name, input, seed, expected) => {
    expect(murmur3x86_32(input, seed)).toBe(expected);
  });

  it('defaults the seed to 0 and always returns an unsigned 32-bit integer', () => {
    expect(murmur3x86_32(utf8('hello'))).toBe(613153351);
    for (let i = 0; i < 1000; i++) {
      const h = murmur3x86_32(utf8(`user-${i}`));
      expect(Number.isInteger(h) && h >= 0 && h <= 0xffffffff).toBe(true);
    }
  });
});
