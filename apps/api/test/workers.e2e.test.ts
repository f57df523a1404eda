/**
 * `API_WORKERS=2`: the api as a process (a cluster primary and two workers on one port, from
 * source under tsx) beside the console in this process, over one SQLite file. Connections go to
 * the workers in turn: each follows the change log, serves the same ETag, takes part in
 * `/readyz`, and stops cleanly with the primary.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, httpCall, tempDir, waitFor } from '@svc/testkit';
import { createLogger, loadSettings } from '@svc/runtime';
import { startConsole, type ConsoleApp } from '@svc/console';
import { openStream } from '@svc/sse/testing';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const TOKEN = 'test-admin-token-workers-0123456789';
const P = '/api/workspaces/acme/projects/web';

let dataDir: string;
let consoleApp: ConsoleApp;
let api: ChildProcess;
let apiPort: number;
let metricsPort: number;
let sk: string;

async function admin(method: string, path: string, body?: unknown) {
  const res = await httpCall(consoleApp.port, method, path, {
    headers: { authorization: `Bearer ${TOKEN}` },
    body,
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res;
}

/** One sync on a connection of its own (so the cluster picks the next worker). */
const syncOnce = () =>
  httpCall(apiPort, 'GET', '/acme/v1/sync', {
    headers: { 'x-service-api-key': sk, connection: 'close' },
  });

/** The pids of the primary's workers (tsx's esbuild is a child too). */
function workerPids(): number[] {
  const args = ['-P', String(api.pid), '-f', 'apps/api/src/main.ts'];
  const out = spawnSync('pgrep', args, { encoding: 'utf8' }).stdout;
  return out.split('\n').filter(Boolean).map(Number);
}

beforeAll(async () => {
  dataDir = tempDir('svc-workers-');
  const settings = loadSettings({
    DATA_DIR: dataDir,
    CONSOLE_PORT: '0',
    HOST: '127.0.0.1',
    CONSOLE_ADMIN_TOKEN: TOKEN,
    LOG_LEVEL: 'silent',
    METRICS_PORT: '0',
  });
  consoleApp = await startConsole(settings, createLogger({ name: 'test', level: 'silent' }), {
    seedDemo: false,
  });
  await admin('POST', '/api/workspaces', { slug: 'acme', name: 'Acme' });
  await admin('POST', '/api/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  await admin('PUT', `${P}/configs/ui.theme`, { value: 'light', is_public: true });
  sk = (await admin('POST', `${P}/keys`, { kind: 'secret' })).json().key;

  apiPort = await freePort();
  metricsPort = await freePort();
  api = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      API_WORKERS: '2',
      DATA_DIR: dataDir,
      PORT: String(apiPort),
      METRICS_PORT: String(metricsPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor(async () => {
    if (api.exitCode !== null) throw new Error(`the api exited with ${api.exitCode}`);
    return (await httpCall(apiPort, 'GET', '/readyz').catch(() => undefined))?.status === 200;
  }, 60_000);
}, 90_000);

afterAll(async () => {
  if (api && api.exitCode === null && api.signalCode === null) {
    api.kill('SIGKILL');
    await once(api, 'exit');
  }
  await consoleApp?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('API_WORKERS=2', () => {
  it('runs two workers that serve the same snapshot and ETag, and each follows changes', async () => {
    expect(workerPids()).toHaveLength(2);
    const first = await Promise.all(Array.from({ length: 12 }, syncOnce));
    expect(new Set(first.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(first.map((r) => r.headers.etag)).size).toBe(1);

    await admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
    // Until both workers have applied it, some answers may still be the old revision.
    await waitFor(async () => {
      const answers = await Promise.all(Array.from({ length: 6 }, syncOnce));
      return answers.every((r) => r.json().configs['ui.theme'] === 'dark');
    }, 5000);
    const after = await Promise.all(Array.from({ length: 12 }, syncOnce));
    expect(new Set(after.map((r) => r.headers.etag)).size).toBe(1);
    expect(after[0]!.headers.etag).not.toBe(first[0]!.headers.etag);
  }, 30_000);

  it("sums the workers' metrics on the primary's metrics port", async () => {
    const text = (await httpCall(metricsPort, 'GET', '/metrics')).text;
    const synced = /svc_http_requests_total\{route="\/v1\/sync",status="200"\} (\d+)/.exec(text);
    // At least the 24 syncs above (and the polls of the wait), counted across both workers.
    expect(Number(synced?.[1])).toBeGreaterThanOrEqual(24);
  });

  it('replaces a worker that dies, and is ready again once the new one has loaded', async () => {
    const [victim] = workerPids();
    process.kill(victim!, 'SIGKILL');
    await waitFor(() => workerPids().length === 2 && !workerPids().includes(victim!), 10_000);
    await waitFor(async () => (await httpCall(apiPort, 'GET', '/readyz')).status === 200, 20_000);
    const answers = await Promise.all(Array.from({ length: 6 }, syncOnce));
    expect(answers.every((r) => r.json().configs['ui.theme'] === 'dark')).toBe(true);
  }, 60_000);

  it('stops every worker on SIGTERM, ending their streams cleanly', async () => {
    const streams = await Promise.all(
      Array.from({ length: 4 }, () =>
        openStream(apiPort, '/acme/v1/stream', { headers: { 'x-service-api-key': sk } }),
      ),
    );
    await Promise.all(streams.map((s) => s.next()));
    const pids = workerPids();
    api.kill('SIGTERM');
    const [code] = (await once(api, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(await Promise.all(streams.map((s) => s.ended))).toEqual(['end', 'end', 'end', 'end']);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  }, 30_000);
});
