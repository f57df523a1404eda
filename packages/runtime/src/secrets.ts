import { AesGcmSealer, decodeRootKey, HmacTokenSigner, loadRootKey } from '@svc/crypto';
import type { Settings } from './settings.ts';

/**
 * The sealer for secret values, under the root key of the settings (or DATA_DIR's key file),
 * also opening values of `SERVICE_ROOT_KEY_PREVIOUS` while a rotation is under way.
 */
export function createSealer(settings: Settings): { sealer: AesGcmSealer; source: string } {
  const { key, source } = loadRootKey({
    fromEnv: settings.SERVICE_ROOT_KEY,
    dataDir: settings.dataDir,
  });
  const previous = (settings.SERVICE_ROOT_KEY_PREVIOUS ?? '')
    .split(',')
    .filter((k) => k.trim() !== '')
    .map((k) => decodeRootKey(k, 'SERVICE_ROOT_KEY_PREVIOUS'));
  return { sealer: new AesGcmSealer(key, previous), source };
}

/**
 * Signs tokens for `purpose` under a key derived from the root key: every instance that shares
 * the root key (as all instances on one database must) verifies every other's tokens.
 */
export function createTokenSigner(settings: Settings, purpose: string): HmacTokenSigner {
  const { key } = loadRootKey({ fromEnv: settings.SERVICE_ROOT_KEY, dataDir: settings.dataDir });
  return new HmacTokenSigner(key, purpose);
}
