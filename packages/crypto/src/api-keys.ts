import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  BASE62_ALPHABET,
  KEY_RANDOM_LENGTH,
  formatApiKey,
  type Digest,
  type KeyGenerator,
  type KeyHasher,
  type KeyKind,
} from '@svc/domain';

/** `length` base62 characters from the system CSPRNG, without modulo bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: bytes at or above it would favour the first characters.
      if (byte < 248 && out.length < length) out += BASE62_ALPHABET[byte % 62];
    }
  }
  return out;
}

/** Mints `svs_…`/`svp_…` keys with the contract's CRC-32 checksum. */
export const apiKeyGenerator: KeyGenerator = {
  generate: (kind: KeyKind) => formatApiKey(kind, randomBase62(KEY_RANDOM_LENGTH)),
};

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Constant-time string comparison: both sides are hashed to equal length first. */
export function constantTimeEquals(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}

/** API keys are stored as their SHA-256: they are random, 200+ bits, so no salt or KDF is needed. */
export const sha256KeyHasher: KeyHasher = {
  hash: sha256Hex,
  equals: constantTimeEquals,
};

/** ETag digest: SHA-256, base64url. */
export const sha256Digest: Digest = (text) =>
  createHash('sha256').update(text, 'utf8').digest('base64url');
