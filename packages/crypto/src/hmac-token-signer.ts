/**
 * Signed, URL-safe tokens (`base64url(payload).base64url(HMAC-SHA256)`) under a key derived
 * from the root key with HKDF for one purpose, so a token's key opens nothing else and every
 * instance sharing the root key verifies every other's tokens.
 */
import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { TokenSigner } from '@svc/domain';

const MAC_BYTES = 32;

/** A 32-byte key for `purpose` (HKDF-SHA256 info), derived from the root key. */
export function deriveKey(rootKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', rootKey, Buffer.alloc(0), purpose, 32));
}

export class HmacTokenSigner implements TokenSigner {
  readonly keyId: string;
  private readonly key: Buffer;

  /** Signs under the key HKDF derives from `rootKey` for `purpose`. */
  constructor(rootKey: Buffer, purpose: string) {
    this.key = deriveKey(rootKey, purpose);
    // Names the key without revealing it: a hash of the derived key, shortened.
    this.keyId = createHash('sha256').update(this.key).digest('base64url').slice(0, 8);
  }

  sign(payload: string): string {
    const body = Buffer.from(payload, 'utf8');
    return `${body.toString('base64url')}.${this.mac(body).toString('base64url')}`;
  }

  verify(token: string): string | undefined {
    const dot = token.indexOf('.');
    if (dot <= 0 || dot !== token.lastIndexOf('.')) return undefined;
    const body = Buffer.from(token.slice(0, dot), 'base64url');
    const mac = Buffer.from(token.slice(dot + 1), 'base64url');
    // Decoding skips characters outside the alphabet: only the canonical form is accepted.
    if (`${body.toString('base64url')}.${mac.toString('base64url')}` !== token) return undefined;
    if (mac.length !== MAC_BYTES || !timingSafeEqual(mac, this.mac(body))) return undefined;
    return body.toString('utf8');
  }

  private mac(body: Buffer): Buffer {
    return createHmac('sha256', this.key).update(body).digest();
  }
}
