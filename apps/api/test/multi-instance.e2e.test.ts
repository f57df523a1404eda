/**
 * Several api instances on one PostgreSQL, as behind a load balancer: two api processes and the
 * console process, each with a data folder of its own, sharing only the database (and the root
 * key). A console change reaches the streams of both instances, which then serve the same
 * snapshot and ETag; a write through one instance reaches the other's streams; the write rate
 * limit is counted across instances; killing one instance leaves the other's streams alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, httpCall, tempDir, waitFor } from '@svc/testkit';
import { openStream, type SseEvent } from '@svc/sse/testing';
import {
  createTestDatabase,
  requirePostgres,
  type TestDatabase,
} from '@svc/storage-postgres/testing';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const TOKEN = 'test-admin-token-multi-0123456789';
const P = '/api/workspaces/acme/projects/web';
const WRITE_LIMIT = 4;

const { server } = await requirePostgres();

interface Instance {
  name: string;
  port: number;
  process: ChildProcess;
  dataDir: string;
}

const instances: Instance[] = [];
let database: TestDatabase | undefined;
let consolePort = 0;
let sk = '';
let pk = '';

/** Starts `entry` as its own process on a data folder of its own; resolves once it is ready. */
async function start(name: string, entry: string, env: Record<string, string>) {
  const port = await freePort();
  const dataDir = tempDir(`svc-multi-${name}-`);
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      DATA_DIR: dataDir,
      PORT: String(port),
      CONSOLE_PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const instance = { name, port, process: child, dataDir };
  instances.push(instance);
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    return (await httpCall(port, 'GET', '/readyz').catch(() => undefined))?.status === 200;
  }, 30_000);
  return instance;
}

async function admin(method: string, path: string, body?: unknown) {
  const res = await httpCall(consolePort, method, path, {
    headers: { authorization: `Bearer ${TOKEN}` },
    body,
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res;
}

const api = (name: 'a' | 'b'): Instance => {
  const instance = instances.find((i) => i.name === name);
  if (!instance) throw new Error(`no api ${name}`);
  return instance;
};
const streamOf = (name: 'a' | 'b', key: string) =>
  openStream(api(name).port, '/acme/v1/stream', { headers: { 'x-service-api-key': key } });
const sync = (name: 'a' | 'b', key: string) =>
  httpCall(api(name).port, 'GET', '/acme/v1/sync', { headers: { 'x-service-api-key': key } });
const putSecret = (name: 'a' | 'b', key: string, secret: string, value: string) =>
  httpCall(api(name).port, 'PUT', `/acme/v1/secrets/${secret}`, {
    headers: { 'x-service-api-key': key },
    body: { value },
  });
const json = (e: SseEvent) => JSON.parse(e.data);

describe.skipIf(!server)('several api instances on one PostgreSQL', () => {
  beforeAll(async () => {
    database = await createTestDatabase(server!);
    const shared = {
      DATABASE_URL: database.url,
      SERVICE_ROOT_KEY: randomBytes(32).toString('base64'),
      CONSOLE_ADMIN_TOKEN: TOKEN,
      SEED_DEMO: 'false',
      WRITE_RATE_LIMIT_MAX: String(WRITE_LIMIT),
      WRITE_RATE_LIMIT_WINDOW_S: '60',
    };
    // All three start on the fresh database at once: they must agree on migrating it.
    const [consoleApp] = await Promise.all([
      start('console', 'apps/console/src/main.ts', shared),
      start('a', 'apps/api/src/main.ts', shared),
      start('b', 'apps/api/src/main.ts', shared),
    ]);
    consolePort = consoleApp.port;
    await admin('POST', '/api/workspaces', { slug: 'acme', name: 'Acme' });
    await admin('POST', '/api/workspaces/acme/projects', { slug: 'web', name: 'Web' });
    await admin('PUT', `${P}/secrets/stripe.api_key`, { value: 'sk_live_multi_1' });
    sk = (await admin('POST', `${P}/keys`, { kind: 'secret' })).json().key;
    pk = (await admin('POST', `${P}/keys`, { kind: 'public' })).json().key;
    // Both instances learn of the keys through their change feeds.
    await waitFor(
      async () => (await sync('a', pk)).status === 200 && (await sync('b', sk)).status === 200,
    );
  }, 60_000);

  afterAll(async () => {
    await Promise.all(
      instances.map(async (instance) => {
        if (instance.process.exitCode === null && instance.process.signalCode === null) {
          instance.process.kill('SIGTERM');
          await once(instance.process, 'exit');
        }
        rmSync(instance.dataDir, { recursive: true, force: true });
      }),
    );
    await database?.drop();
  }, 30_000);

  it('delivers a console change to the streams of both instances, which then serve one ETag', async () => {
    const streams = await Promise.all([
      streamOf('a', sk),
      streamOf('a', pk),
      streamOf('b', sk),
      streamOf('b', pk),
    ]);
    for (const s of streams) expect((await s.next()).event).toBe('resync');

    const started = performance.now();
    await admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
    const events = await Promise.all(streams.map((s) => s.next()));
    // Woken by NOTIFY, typically in milliseconds; the catch-up read bounds it at about a second
    // even if a notification were lost (a loaded CI machine needs the slack).
    expect(performance.now() - started).toBeLessThan(1000);
    for (const event of events) {
      expect(json(event)).toEqual({
        revision: Number(event.id),
        kind: 'config',
        key: 'ui.theme',
        op: 'upsert',
        value: 'dark',
      });
    }
    // One revision everywhere: both instances built the same change from the same log.
    expect(new Set(events.map((e) => e.id)).size).toBe(1);

    for (const key of [sk, pk]) {
      const [a, b] = await Promise.all([sync('a', key), sync('b', key)]);
      expect(a.status).toBe(200);
      expect(a.json().configs['ui.theme']).toBe('dark');
      expect(b.headers.etag).toBe(a.headers.etag);
      expect(b.text).toBe(a.text);
    }
    for (const s of streams) s.close();
  });

  it("delivers a secret written through one instance to the other's streams", async () => {
    const onB = await streamOf('b', sk);
    await onB.next();
    const res = await putSecret('a', sk, 'stripe.api_key', 'sk_live_multi_2');
    expect(res.status).toBe(200);
    expect(json(await onB.next())).toMatchObject({
      kind: 'secret',
      key: 'stripe.api_key',
      value: 'sk_live_multi_2',
      version: 2,
    });
    onB.close();
    // The writing instance answers before its own feed has applied the write: wait for both.
    await waitFor(async () => {
      const [a, b] = await Promise.all([sync('a', sk), sync('b', sk)]);
      return a.json().secrets['stripe.api_key'].version === 2 && b.headers.etag === a.headers.etag;
    }, 1000);
  });

  it('counts the secret write limit across instances', async () => {
    const key = (await admin('POST', `${P}/keys`, { kind: 'secret' })).json().key as string;
    await waitFor(
      async () => (await sync('a', key)).status === 200 && (await sync('b', key)).status === 200,
    );
    for (let i = 0; i < WRITE_LIMIT; i++) {
      const res = await putSecret(i % 2 ? 'b' : 'a', key, 'limited', `value-${i}`);
      expect(res.status, res.text).toBeLessThan(300);
    }
    // Each instance saw only half of the writes; the shared count says the key is done.
    for (const name of ['a', 'b'] as const) {
      const res = await putSecret(name, key, 'limited', 'one too many');
      expect(res.status).toBe(429);
      expect(res.json().code).toBe('rate_limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it("keeps one instance's streams going when the other is killed", async () => {
    const [onA, onB, onBPublic] = await Promise.all([
      streamOf('a', sk),
      streamOf('b', sk),
      streamOf('b', pk),
    ]);
    await Promise.all([onA.next(), onB.next(), onBPublic.next()]);

    const a = api('a').process;
    a.kill('SIGKILL');
    await once(a, 'exit');
    expect(await onA.ended).toBe('aborted');

    await admin('PUT', `${P}/flags/after.kill`, { is_active: true });
    expect(json(await onB.next())).toMatchObject({ kind: 'flag', key: 'after.kill', value: true });
    expect(json(await onBPublic.next())).toMatchObject({ kind: 'flag', key: 'after.kill' });
    const res = await sync('b', sk);
    expect(res.status).toBe(200);
    expect(res.json().flags['after.kill']).toBe(true);
    onB.close();
    onBPublic.close();
  });
});
