import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveKey, HmacTokenSigner } from '../src/index.ts';

const rootKey = randomBytes(32);

describe('deriveKey', () => {
  it('is HKDF-SHA256 (RFC 5869 test case 3, first 32 bytes)', () => {
    const ikm = Buffer.alloc(22, 0x0b);
    expect(deriveKey(ikm, '').toString('hex')).toBe(
      '8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d',
    );
  });

  it('gives each purpose its own key', () => {
    expect(deriveKey(rootKey, 'a').equals(deriveKey(rootKey, 'b'))).toBe(false);
    expect(deriveKey(rootKey, 'a').equals(deriveKey(rootKey, 'a'))).toBe(true);
  });
});

describe('HmacTokenSigner', () => {
  const signer = new HmacTokenSigner(rootKey, 'view token');

  it('signs into a URL-safe token and reads the payload back', () => {
    const payload = '["v1",1,"ws|1","p|s|pk","é"]';
    const token = signer.sign(payload);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(encodeURIComponent(token)).toBe(token);
    expect(signer.verify(token)).toBe(payload);
    // Deterministic: the same payload, the same token.
    expect(signer.sign(payload)).toBe(token);
  });

  it('refuses altered, truncated, re-encoded or foreign tokens', () => {
    const token = signer.sign('["v1",1]');
    const [body, mac] = token.split('.') as [string, string];
    const forged = Buffer.from('["v1",2]').toString('base64url');
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    for (const bad of [
      `${forged}.${mac}`,
      `${body}.${flip(mac)}`,
      `${body}.${mac.slice(0, -2)}`,
      `${body}.`,
      `.${mac}`,
      body,
      `${body}.${mac}.x`,
      `${body}.${mac}=`,
      `${body}.${mac}!`,
      '',
      new HmacTokenSigner(randomBytes(32), 'view token').sign('["v1",1]'),
      new HmacTokenSigner(rootKey, 'other purpose').sign('["v1",1]'),
    ]) {
      expect(signer.verify(bad), bad).toBeUndefined();
    }
  });

  it('names its key without revealing it, the same for the same root key and purpose', () => {
    expect(signer.keyId).toBe(new HmacTokenSigner(rootKey, 'view token').keyId);
    expect(signer.keyId).not.toBe(new HmacTokenSigner(randomBytes(32), 'view token').keyId);
    expect(signer.keyId).toMatch(/^[A-Za-z0-9_-]{8}$/);
  });
});
