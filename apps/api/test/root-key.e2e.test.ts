import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { AesGcmSealer } from '@svc/crypto';
import { startConsole } from '@svc/console';
import { createLogger, loadSettings, openStorage } from '@svc/runtime';
import { httpCall, tempDir, waitFor } from '@svc/testkit';
import { startApi } from '../src/index.ts';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const logger = createLogger({ name: 'test', level: 'silent' });
const dataDir = tempDir('svc-rootkey-');
const oldKey = randomBytes(32).toString('base64');
const newKey = randomBytes(32).toString('base64');
const settingsWith = (env: Record<string, string>) =>
  loadSettings({
    DATA_DIR: dataDir,
    PORT: '0',
    CONSOLE_PORT: '0',
    HOST: '127.0.0.1',
    CONSOLE_ADMIN_TOKEN: 'root-key-test-token-0123',
    SYNC_QUARANTINE_MAX: '100000',
    ...env,
  });

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('refuses a wrong root key at start, and rotates to a new one without stopping reads', async () => {
  // Secrets sealed under the old key.
  const consoleApp = await startConsole(settingsWith({ SERVICE_ROOT_KEY: oldKey }), logger, {
    seedDemo: true,
  });
  const sk = consoleApp.demo!.secretKey;
  await consoleApp.close();

  await expect(startApi(settingsWith({ SERVICE_ROOT_KEY: newKey }), logger)).rejects.toThrow(
    /wrong root key/,
  );

  // An api that knows both keys keeps serving while the rotation runs.
  const api = await startApi(
    settingsWith({ SERVICE_ROOT_KEY: newKey, SERVICE_ROOT_KEY_PREVIOUS: oldKey }),
    logger,
  );
  const sync = () =>
    httpCall(api.port, 'GET', '/demo/v1/sync', { headers: { 'x-service-api-key': sk } });
  const before = (await sync()).json();
  expect(before.secrets['stripe.api_key'].value).toMatch(/^sk_test_demo/);

  const run = promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'apps/console/src/rotate-root-key.ts'],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        SERVICE_ROOT_KEY: newKey,
        SERVICE_ROOT_KEY_PREVIOUS: oldKey,
        LOG_LEVEL: 'silent',
      },
    },
  );
  let readsDuringRotation = 0;
  let done = false;
  const rotation = run.finally(() => (done = true));
  await waitFor(async () => {
    expect((await sync()).status).toBe(200);
    readsDuringRotation += 1;
    return done;
  }, 60_000);
  const { stdout } = await rotation;
  expect(stdout).toMatch(/re-wrapped 3 secret versions/);
  expect(readsDuringRotation).toBeGreaterThan(0);
  expect((await sync()).text).toBe(JSON.stringify(before));
  await api.close();

  // Every value is now under the new key alone.
  const storage = await openStorage(settingsWith({}));
  const sealed = await storage.store.listSealedVersions();
  await storage.store.close();
  const newId = new AesGcmSealer(Buffer.from(newKey, 'base64')).rootKeyId;
  expect(sealed.map((s) => s.sealed.split('.')[1])).toEqual([newId, newId, newId]);
  const onlyNew = await startApi(settingsWith({ SERVICE_ROOT_KEY: newKey }), logger);
  const after = await httpCall(onlyNew.port, 'GET', '/demo/v1/sync', {
    headers: { 'x-service-api-key': sk },
  });
  expect(after.json().secrets).toEqual(before.secrets);
  await onlyNew.close();
}, 60_000);
