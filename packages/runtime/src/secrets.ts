import { AesGcmSealer, loadRootKey } from '@svc/crypto';
import type { Settings } from './settings.ts';

/** The sealer for secret values, under the root key of the settings (or DATA_DIR's key file). */
export function createSealer(settings: Settings): { sealer: AesGcmSealer; source: string } {
  const { key, source } = loadRootKey({
    fromEnv: settings.SERVICE_ROOT_KEY,
    dataDir: settings.dataDir,
  });
  return { sealer: new AesGcmSealer(key), source };
}
