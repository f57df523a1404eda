/**
 * The console as a separate process (as `pnpm start` runs it) and the api in this one, over one
 * SQLite file: a console change crosses processes through the change feed and reaches the api's
 * streams. Also: a shutdown of the api ends its streams cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, httpCall, tempDir, waitFor } from '@svc/testkit';
import { createLogger, loadSettings } from '@svc/runtime';
import { openStream, type SseEvent } from '@svc/sse/testing';
import { startApi, type ApiApp } from '../src/index.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const TOKEN = 'test-admin-token-process-0123456789';
const P = '/api/workspaces/acme/projects/web';

let dataDir: string;
let consoleProcess: ChildProcess;
let consolePort: number;
let api: ApiApp | undefined;
let sk: string;
let pk: string;

async function admin(method: string, path: string, body?: unknown) {
  const res = await httpCall(consolePort, method, path, {
    headers: { authorization: `Bearer ${TOKEN}` },
    body,
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res;
}

const json = (e: SseEvent) => JSON.parse(e.data);

beforeAll(async () => {
  dataDir = tempDir('svc-stream-process-');
  consolePort = await freePort();
  consoleProcess = spawn(process.execPath, ['--import', 'tsx', 'apps/console/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      CONSOLE_PORT: String(consolePort),
      HOST: '127.0.0.1',
      CONSOLE_ADMIN_TOKEN: TOKEN,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor(async () => {
    if (consoleProcess.exitCode !== null)
      throw new Error(`console exited with ${consoleProcess.exitCode}`);
    return (await httpCall(consolePort, 'GET', '/readyz').catch(() => undefined))?.status === 200;
  }, 20_000);
  await admin('POST', '/api/workspaces', { slug: 'acme', name: 'Acme' });
  await admin('POST', '/api/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  await admin('PUT', `${P}/secrets/stripe.api_key`, { value: 'sk_live_process_7781' });
  sk = (await admin('POST', `${P}/keys`, { kind: 'secret' })).json().key;
  pk = (await admin('POST', `${P}/keys`, { kind: 'public' })).json().key;

  const settings = loadSettings({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
  });
  api = await startApi(settings, createLogger({ name: 'test', level: 'silent' }));
}, 30_000);

afterAll(async () => {
  await api?.close();
  if (consoleProcess && consoleProcess.exitCode === null) {
    consoleProcess.kill('SIGTERM');
    await once(consoleProcess, 'exit');
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const streamOf = (key: string) =>
  openStream(api!.port, '/acme/v1/stream', { headers: { 'x-service-api-key': key } });

describe('GET /v1/stream with the console in another process', () => {
  it("delivers the console process's changes to the api's streams", async () => {
    const [s, p] = await Promise.all([streamOf(sk), streamOf(pk)]);
    expect((await s.next()).event).toBe('resync');
    expect((await p.next()).event).toBe('resync');

    const started = performance.now();
    await admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
    const event = await s.next();
    expect(performance.now() - started).toBeLessThan(300);
    expect(json(event)).toEqual({
      revision: Number(event.id),
      kind: 'config',
      key: 'ui.theme',
      op: 'upsert',
      value: 'dark',
    });
    expect(await p.next()).toEqual(event);

    // A secret sealed by the console is opened by the api and reaches the secret key only.
    await admin('PUT', `${P}/secrets/stripe.api_key`, { value: 'sk_live_rotated_process_2290' });
    await admin('PUT', `${P}/flags/marker`, { is_active: true });
    expect(json(await s.next())).toMatchObject({
      kind: 'secret',
      key: 'stripe.api_key',
      value: 'sk_live_rotated_process_2290',
      version: 2,
    });
    expect(json(await s.next())).toMatchObject({ kind: 'flag', key: 'marker', value: true });
    expect(json(await p.next())).toMatchObject({ kind: 'flag', key: 'marker', value: true });
    expect(p.raw().toString()).not.toContain('sk_live');
    s.close();
    p.close();
  });

  it('ends every stream cleanly when the api shuts down', async () => {
    const streams = await Promise.all([streamOf(sk), streamOf(sk), streamOf(pk)]);
    await Promise.all(streams.map((s) => s.next()));
    const started = performance.now();
    await api!.close();
    api = undefined;
    expect(performance.now() - started).toBeLessThan(1500);
    expect(await Promise.all(streams.map((s) => s.ended))).toEqual(['end', 'end', 'end']);
  });
});
