import { describe, expect, it } from 'vitest';
import { isName, NAME_MAX_LENGTH, textLength } from './names.ts';

describe('names', () => {
  it('counts characters as code points, as JSON Schema does', () => {
    expect(textLength('a😀b')).toBe(3);
    expect(isName('😀'.repeat(NAME_MAX_LENGTH))).toBe(true);
    expect(isName('x'.repeat(NAME_MAX_LENGTH + 1))).toBe(false);
  });

  it('refuses blank names, control characters and lone surrogates', () => {
    for (const bad of ['', '   ', 'a\u0000b', 'line\nbreak', 'del\u007f', 'x\ud800']) {
      expect(isName(bad), JSON.stringify(bad)).toBe(false);
    }
    expect(isName('Shop — checkout (EU)')).toBe(true);
  });
});
