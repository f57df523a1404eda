import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { SealedValue, SecretSealer } from '@svc/domain';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const ROOT_KEY_BYTES = 32;

/** Raised when a sealed value cannot be opened: wrong root key, wrong context or tampering. */
export class SealError extends Error {}

/**
 * Envelope encryption: each value is encrypted with AES-256-GCM under a fresh random data key,
 * and that data key is encrypted (wrapped) under the root key. The context (where the value
 * lives) is bound as associated data to both, so a sealed value cannot be moved elsewhere.
 *
 * Sealed form: `v1.<rootKeyId>.<wrapIv>.<wrappedKey+tag>.<iv>.<ciphertext+tag>` (base64url).
 */
export class AesGcmSealer implements SecretSealer {
  /** Short fingerprint of the root key, to tell which key sealed a value. */
  readonly rootKeyId: string;

  /** Root keys by fingerprint: the current one and any previous ones still being rotated out. */
  private readonly keyring = new Map<string, Buffer>();

  /**
   * Seals under `rootKey`; opens values sealed under it or under any of `previousKeys` (during a
   * root-key rotation, until every value is re-wrapped).
   */
  constructor(
    private readonly rootKey: Buffer,
    previousKeys: Buffer[] = [],
  ) {
    for (const key of [rootKey, ...previousKeys]) {
      if (key.length !== ROOT_KEY_BYTES)
        throw new SealError(`root key must be ${ROOT_KEY_BYTES} bytes`);
      this.keyring.set(fingerprint(key), key);
    }
    this.rootKeyId = fingerprint(rootKey);
  }

  seal(plaintext: string, context: string): SealedValue {
    const dataKey = randomBytes(ROOT_KEY_BYTES);
    try {
      const [iv, ciphertext] = encrypt(dataKey, Buffer.from(plaintext, 'utf8'), `value:${context}`);
      return [
        VERSION,
        this.rootKeyId,
        ...this.wrap(dataKey, context),
        b64(iv),
        b64(ciphertext),
      ].join('.');
    } finally {
      dataKey.fill(0);
    }
  }

  open(sealed: SealedValue, context: string): string {
    const parts = parse(sealed);
    const dataKey = decrypt(
      this.rootKeyOf(parts.rootKeyId),
      parts.wrapIv,
      parts.wrappedKey,
      `key:${context}`,
    );
    try {
      return decrypt(dataKey, parts.iv, parts.ciphertext, `value:${context}`).toString('utf8');
    } finally {
      dataKey.fill(0);
    }
  }

  /**
   * Re-wraps the data key of a value sealed under a previous root key under the current one;
   * the ciphertext itself is untouched (root-key rotation without re-encrypting values).
   * A value already under the current key is returned as it is.
   */
  rewrap(sealed: SealedValue, context: string): SealedValue {
    const parts = parse(sealed);
    if (parts.rootKeyId === this.rootKeyId) return sealed;
    const dataKey = decrypt(
      this.rootKeyOf(parts.rootKeyId),
      parts.wrapIv,
      parts.wrappedKey,
      `key:${context}`,
    );
    try {
      return [
        VERSION,
        this.rootKeyId,
        ...this.wrap(dataKey, context),
        b64(parts.iv),
        b64(parts.ciphertext),
      ].join('.');
    } finally {
      dataKey.fill(0);
    }
  }

  private rootKeyOf(id: string): Buffer {
    const key = this.keyring.get(id);
    if (!key)
      throw new SealError(
        `value was sealed under root key ${id}, which is not configured (current: ${this.rootKeyId})`,
      );
    return key;
  }

  private wrap(dataKey: Buffer, context: string): [string, string] {
    const [iv, wrapped] = encrypt(this.rootKey, dataKey, `key:${context}`);
    return [b64(iv), b64(wrapped)];
  }
}

function fingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

function encrypt(key: Buffer, plaintext: Buffer, aad: string): [Buffer, Buffer] {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return [iv, body];
}

function decrypt(key: Buffer, iv: Buffer, body: Buffer, aad: string): Buffer {
  if (body.length < TAG_BYTES) throw new SealError('sealed value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  try {
    return Buffer.concat([
      decipher.update(body.subarray(0, body.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    throw new SealError(
      'sealed value does not open: wrong root key, wrong context or tampered data',
    );
  }
}

function parse(sealed: string) {
  const parts = sealed.split('.');
  if (parts.length !== 6 || parts[0] !== VERSION) throw new SealError('not a sealed value');
  const [, rootKeyId, wrapIv, wrappedKey, iv, ciphertext] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return {
    rootKeyId,
    wrapIv: unb64(wrapIv),
    wrappedKey: unb64(wrappedKey),
    iv: unb64(iv),
    ciphertext: unb64(ciphertext),
  };
}

const b64 = (b: Buffer) => b.toString('base64url');
const unb64 = (s: string) => Buffer.from(s, 'base64url');
