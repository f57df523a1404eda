/**
 * The API key format of the wire contract, checked locally so that a mistyped or truncated key
 * fails at construction instead of as a 401 later: `svs_` (secret) or `svp_` (public), then 34
 * random base62 characters and a 6-character base62 CRC-32 of everything before them.
 */

/** The kind of API key a client holds: `sk` (secret key) or `pk` (public key). */
export type KeyType = 'sk' | 'pk';

/** CRC-32/IEEE of an ASCII string, as zlib computes it (bit by bit: keys are 38 characters). */
function crc32(ascii: string): number {
  let crc = -1;
  for (let i = 0; i < ascii.length; i++) {
    crc ^= ascii.charCodeAt(i);
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return ~crc >>> 0;
}

/** `n` in base62 (`0-9A-Za-z`), left-padded with `0` to 6 digits. */
function base62(n: number): string {
  let out = '';
  for (let digit = 0; digit < 6; digit++, n = Math.floor(n / 62)) {
    const d = n % 62;
    out = String.fromCharCode(d + (d < 10 ? 48 : d < 36 ? 55 : 61)) + out;
  }
  return out;
}

/**
 * The key type of a well-formed key with a correct checksum, or `undefined` for anything else.
 * Never echoes the key: callers build their messages without it.
 */
export function keyTypeOf(apiKey: string): KeyType | undefined {
  const match = /^sv([sp])_[0-9A-Za-z]{40}$/.exec(apiKey);
  if (match === null || base62(crc32(apiKey.slice(0, -6))) !== apiKey.slice(-6)) return undefined;
  return match[1] === 's' ? 'sk' : 'pk';
}
