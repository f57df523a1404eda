/**
 * The API key format of the wire contract, checked locally so that a mistyped or truncated key
 * fails at construction instead of as a 401 later: `svs_` (secret) or `svp_` (public), then 34
 * random base62 characters and a 6-character base62 CRC-32 of everything before them.
 */

/** The kind of API key a client holds: `sk` (secret key) or `pk` (public key). */
export type KeyType = 'sk' | 'pk';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^(svs|svp)_[0-9A-Za-z]{40}$/;
const CHECKSUM_LENGTH = 6;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32/IEEE of an ASCII string, as zlib computes it. */
function crc32(ascii: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < ascii.length; i++) {
    crc = CRC_TABLE[(crc ^ ascii.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function toBase62(n: number, width: number): string {
  let out = '';
  for (let rest = n; rest > 0; rest = Math.floor(rest / 62)) out = BASE62[rest % 62] + out;
  return out.padStart(width, '0');
}

/**
 * The key type of a well-formed key with a correct checksum, or `undefined` for anything else.
 * Never echoes the key: callers build their messages without it.
 */
export function keyTypeOf(apiKey: string): KeyType | undefined {
  if (!KEY_PATTERN.test(apiKey)) return undefined;
  const body = apiKey.slice(0, -CHECKSUM_LENGTH);
  if (toBase62(crc32(body), CHECKSUM_LENGTH) !== apiKey.slice(-CHECKSUM_LENGTH)) return undefined;
  return apiKey.startsWith('svs_') ? 'sk' : 'pk';
}
