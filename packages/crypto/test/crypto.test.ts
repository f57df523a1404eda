import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { parseApiKey } from '@svc/domain';
import {
  AesGcmSealer,
  SealError,
  apiKeyGenerator,
  constantTimeEquals,
  decodeRootKey,
  loadRootKey,
  randomBase62,
  sha256KeyHasher,
} from '../src/index.ts';

describe('API keys', () => {
  it('generates keys of the contract shape that pass the checksum', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const sk = apiKeyGenerator.generate('secret');
      expect(sk).toMatch(/^svs_[0-9A-Za-z]{40}$/);
      expect(parseApiKey(sk)?.kind).toBe('secret');
      keys.add(sk);
    }
    expect(keys.size).toBe(200);
    expect(parseApiKey(apiKeyGenerator.generate('public'))?.keyType).toBe('pk');
  });

  it('draws base62 characters without bias towards the first ones', () => {
    const counts = new Map<string, number>();
    for (const c of randomBase62(62_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(n).toBeGreaterThan(800);
  });

  it('hashes to SHA-256 hex and compares in constant time', () => {
    expect(sha256KeyHasher.hash('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(constantTimeEquals('same', 'same')).toBe(true);
    expect(constantTimeEquals('same', 'sane')).toBe(false);
    expect(constantTimeEquals('same', 'same ')).toBe(false);
  });
});

describe('AesGcmSealer', () => {
  const sealer = new AesGcmSealer(randomBytes(32));

  it('round-trips and never contains the plaintext', () => {
    const sealed = sealer.seal('sk_live_very_secret', 'p/s/stripe/1');
    expect(sealed).not.toContain('sk_live');
    expect(Buffer.from(sealed).toString('latin1')).not.toContain('very_secret');
    expect(sealer.open(sealed, 'p/s/stripe/1')).toBe('sk_live_very_secret');
  });

  it('uses a fresh data key and IV each time', () => {
    expect(sealer.seal('x', 'c')).not.toBe(sealer.seal('x', 'c'));
  });

  it('refuses another context, another root key and tampering', () => {
    const sealed = sealer.seal('value', 'ctx');
    expect(() => sealer.open(sealed, 'other')).toThrow(SealError);
    expect(() => new AesGcmSealer(randomBytes(32)).open(sealed, 'ctx')).toThrow(/root key/);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[5]!, 'base64url');
    body[0]! ^= 1;
    parts[5] = body.toString('base64url');
    expect(() => sealer.open(parts.join('.'), 'ctx')).toThrow(SealError);
    expect(() => sealer.open('garbage', 'ctx')).toThrow(SealError);
  });

  it('opens values of a previous root key and re-wraps them under the new one', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = new AesGcmSealer(oldKey);
    const during = new AesGcmSealer(newKey, [oldKey]);
    const sealed = before.seal('rotate me', 'ctx');
    expect(during.open(sealed, 'ctx')).toBe('rotate me');
    const rewrapped = during.rewrap(sealed, 'ctx');
    expect(rewrapped.split('.')[5]).toBe(sealed.split('.')[5]);
    expect(rewrapped.split('.')[1]).toBe(during.rootKeyId);
    expect(during.rewrap(rewrapped, 'ctx')).toBe(rewrapped);
    expect(new AesGcmSealer(newKey).open(rewrapped, 'ctx')).toBe('rotate me');
    expect(() => before.open(rewrapped, 'ctx')).toThrow(SealError);
    expect(() => during.rewrap(sealed, 'other-ctx')).toThrow(SealError);
  });
});

describe('root key', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('creates a 0600 key file on first start and reads the same key afterwards', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'svc-key-')), 'data');
    dirs.push(dataDir);
    const first = loadRootKey({ dataDir });
    expect(first.key).toHaveLength(32);
    expect(statSync(join(dataDir, 'root.key')).mode & 0o777).toBe(0o600);
    expect(loadRootKey({ dataDir }).key.equals(first.key)).toBe(true);
    expect(readFileSync(join(dataDir, 'root.key'), 'utf8').trim()).toBe(
      first.key.toString('base64'),
    );
  });

  it('prefers SERVICE_ROOT_KEY and rejects a malformed one by name', () => {
    const b64 = randomBytes(32).toString('base64');
    expect(loadRootKey({ fromEnv: b64, dataDir: '/nonexistent' }).key.toString('base64')).toBe(b64);
    expect(() => decodeRootKey('c2hvcnQ=')).toThrow(/SERVICE_ROOT_KEY/);
  });
});
