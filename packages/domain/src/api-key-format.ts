/**
 * API key format of the wire contract: `svs_` (secret) or `svp_` (public) followed by 40
 * base62 characters: 34 random ones and a 6-character base62 CRC-32 of everything before
 * them, so a leaked key is recognisable offline and a mistyped one is caught locally.
 */

export type KeyKind = 'secret' | 'public';
/** The short key type of the wire (`key_type` in a snapshot, `getKeyType()` in clients). */
export type KeyType = 'sk' | 'pk';

export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_RANDOM_LENGTH = 34;
export const KEY_CHECKSUM_LENGTH = 6;
const PREFIX_BY_KIND: Record<KeyKind, string> = { secret: 'svs_', public: 'svp_' };
const KEY_PATTERN = /^(svs|svp)_([0-9A-Za-z]{40})$/;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32/IEEE of the ASCII string, as zlib computes it. */
export function crc32(ascii: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < ascii.length; i++) {
    crc = CRC_TABLE[(crc ^ ascii.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** `n` in base62, most significant digit first, left-padded with `0` to `width`. */
export function toBase62(n: number, width: number): string {
  let out = '';
  let rest = n;
  while (rest > 0) {
    out = BASE62_ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, '0');
}

/** Builds a full key from its kind and 34 random base62 characters. */
export function formatApiKey(kind: KeyKind, random: string): string {
  if (!/^[0-9A-Za-z]{34}$/.test(random))
    throw new TypeError('random part must be 34 base62 characters');
  const body = PREFIX_BY_KIND[kind] + random;
  return body + toBase62(crc32(body), KEY_CHECKSUM_LENGTH);
}

export interface ParsedApiKey {
  kind: KeyKind;
  keyType: KeyType;
  /** The first characters, safe to show in lists and logs (`svs_8aspm4`). */
  prefix: string;
}

/** Parses a key; `undefined` for any other shape or a wrong checksum. */
export function parseApiKey(raw: string): ParsedApiKey | undefined {
  const match = KEY_PATTERN.exec(raw);
  if (!match) return undefined;
  const body = raw.slice(0, raw.length - KEY_CHECKSUM_LENGTH);
  if (toBase62(crc32(body), KEY_CHECKSUM_LENGTH) !== raw.slice(-KEY_CHECKSUM_LENGTH))
    return undefined;
  const kind: KeyKind = match[1] === 'svs' ? 'secret' : 'public';
  return { kind, keyType: keyTypeOf(kind), prefix: raw.slice(0, 10) };
}

export function keyTypeOf(kind: KeyKind): KeyType {
  return kind === 'secret' ? 'sk' : 'pk';
}
