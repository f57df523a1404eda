/**
 * `pnpm rotate-root-key`: re-wraps every secret's data key under the current root key.
 *
 * 1. Start every api and console with the new key in SERVICE_ROOT_KEY and the old one in
 *    SERVICE_ROOT_KEY_PREVIOUS (a rolling restart: each instance opens values under either key).
 * 2. Run this command with the same settings.
 * 3. Drop SERVICE_ROOT_KEY_PREVIOUS at the next restart.
 * Reads never stop: views are in memory, and every instance can open values under both keys.
 */
import { rewrapAllSecrets } from '@svc/domain';
import { createSealer, loadSettings, openStorage } from '@svc/runtime';

const settings = loadSettings();
if (!settings.SERVICE_ROOT_KEY_PREVIOUS) {
  console.error(
    'rotate-root-key: set SERVICE_ROOT_KEY (the new key) and SERVICE_ROOT_KEY_PREVIOUS (the old one)',
  );
  process.exit(2);
}
const storage = await openStorage(settings);
try {
  const { sealer } = createSealer(settings);
  const rewritten = await rewrapAllSecrets(storage.store, (sealed, context) =>
    sealer.rewrap(sealed, context),
  );
  console.log(
    `re-wrapped ${rewritten} secret versions under root key ${sealer.rootKeyId} (${storage.describe})`,
  );
} finally {
  await storage.store.close();
}
