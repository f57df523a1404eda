import { describe, expect, it } from 'vitest';
import type { Scope } from './model.ts';
import type { SecretSealer } from './ports.ts';
import { openSecret, secretContext, withSecretContext } from './secrets.ts';

/** Seals by writing the context in front: opening under another context fails, as AES-GCM's AAD does. */
const sealer: SecretSealer = {
  seal: (plaintext, context) => `${context}|${plaintext}`,
  open: (sealed, context) => {
    if (!sealed.startsWith(`${context}|`)) throw new Error('context mismatch');
    return sealed.slice(context.length + 1);
  },
};

const scope: Scope = { projectId: 'p1', serviceId: null };
const cert = { key: 'tls.cert', version: 3, type: 'file' as const, fileName: 'tls.pem' };

describe('secret sealing context', () => {
  it('binds where a value lives and what it is: key, version, type and file name', () => {
    const sealed = sealer.seal('PEM', secretContext(scope, cert));
    expect(openSecret(sealer, scope, { ...cert, sealed })).toBe('PEM');
    for (const moved of [
      { ...cert, type: 'text' as const, fileName: null },
      { ...cert, fileName: 'other.pem' },
      { ...cert, version: 4 },
      { ...cert, key: 'tls.key' },
    ]) {
      expect(() => openSecret(sealer, scope, { ...moved, sealed })).toThrow('context mismatch');
    }
    expect(() =>
      openSecret(sealer, { projectId: 'p1', serviceId: 's1' }, { ...cert, sealed }),
    ).toThrow('context mismatch');
  });

  it('still opens (and re-wraps) values sealed before type and file name were bound', () => {
    const legacy = sealer.seal('old value', 'p1//tls.cert/3');
    expect(openSecret(sealer, scope, { ...cert, sealed: legacy })).toBe('old value');
    const contexts: string[] = [];
    withSecretContext(scope, cert, (context) => {
      contexts.push(context);
      return sealer.open(legacy, context);
    });
    expect(contexts).toEqual([secretContext(scope, cert), 'p1//tls.cert/3']);
  });
});
