import { describe, expect, it } from 'vitest';
import { crc32, formatApiKey, parseApiKey, toBase62 } from './api-key-format.ts';

describe('API key format', () => {
  it('accepts the contract examples', () => {
    expect(parseApiKey('svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN')).toEqual({
      kind: 'secret',
      keyType: 'sk',
      prefix: 'svs_8aspm4',
    });
    expect(parseApiKey('svp_y6vK111fY0yuOhDRk1XEmSyVZEMEhEmTyI1nZ71t')?.keyType).toBe('pk');
  });

  it('rejects a wrong checksum and other shapes', () => {
    expect(parseApiKey('svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvM')).toBeUndefined();
    expect(parseApiKey('svx_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN')).toBeUndefined();
    expect(parseApiKey('svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHv')).toBeUndefined();
    expect(parseApiKey('')).toBeUndefined();
    expect(parseApiKey(' svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN')).toBeUndefined();
  });

  it('computes CRC-32 as zlib does', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(crc32('')).toBe(0);
  });

  it('writes base62 most significant digit first, padded', () => {
    expect(toBase62(0, 6)).toBe('000000');
    expect(toBase62(61, 6)).toBe('00000z');
    expect(toBase62(62, 6)).toBe('000010');
    expect(toBase62(0xffffffff, 6)).toBe('4gfFC3');
  });

  it('formats keys that parse back to their kind', () => {
    const random = 'A'.repeat(34);
    expect(parseApiKey(formatApiKey('secret', random))?.kind).toBe('secret');
    expect(parseApiKey(formatApiKey('public', random))?.kind).toBe('public');
    expect(() => formatApiKey('secret', 'short')).toThrow(TypeError);
  });
});
