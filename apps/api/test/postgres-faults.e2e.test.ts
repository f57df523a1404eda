/**
 * PostgreSQL going away under load, with two api instances and a console as real processes on
 * a PostgreSQL server of this file's own (so it may stop it): syncs and streams keep being
 * served from memory, writes fail fast with a clean 503, no process dies, and nothing committed
 * is missed once the database is back. The same when the apps' backends are terminated.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { adminCalls, httpCall, waitFor } from '@svc/testkit';
import { startAppProcess, type AppProcess } from '@svc/testkit/app-process';
import { openStream, type SseReader } from '@svc/sse/testing';
import { createTestDatabase, startThrowawayServer } from '@svc/storage-postgres/testing';

const TOKEN = 'test-admin-token-faults-0123456789';
const P = '/workspaces/acme/projects/web';

const { server } = await startThrowawayServer();

describe.skipIf(!server)('PostgreSQL going away under load', () => {
  let env: Record<string, string> = {};
  let consoleApp: AppProcess;
  let apis: AppProcess[] = [];
  let sk = '';

  beforeAll(async () => {
    env = {
      DATABASE_URL: (await createTestDatabase(server!)).url,
      SERVICE_ROOT_KEY: randomBytes(32).toString('base64'),
      CONSOLE_ADMIN_TOKEN: TOKEN,
      // These clients sync far more often than real ones: no quarantine.
      SYNC_QUARANTINE_MAX: '1000000',
      WRITE_RATE_LIMIT_MAX: '100000',
      LOG_LEVEL: 'warn',
    };
    consoleApp = await startAppProcess('console', env);
    apis = await Promise.all([startAppProcess('api', env), startAppProcess('api', env)]);
    await admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
    await admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
    sk = (await admin('POST', `${P}/keys`, { kind: 'secret' })).json().key;
    await waitFor(async () => (await Promise.all(apis.map(syncStatus))).every((s) => s === 200));
  }, 60_000);

  afterEach(() => {
    // A process that died: its last words, for whoever reads the failure.
    for (const app of [...apis, consoleApp]) {
      if (app && !app.alive)
        console.error(`${app.app} :${app.port} died:\n${app.output().slice(-4000)}`);
    }
  });

  afterAll(async () => {
    for (const app of [...apis, consoleApp]) await app?.remove();
    await server?.destroy();
  }, 30_000);

  const { admin, adminRaw } = adminCalls(() => consoleApp.port, TOKEN);
  const sync = (api: AppProcess) =>
    httpCall(api.port, 'GET', '/acme/v1/sync', { headers: { 'x-service-api-key': sk } });
  const syncStatus = async (api: AppProcess) => (await sync(api)).status;
  const putSecret = (api: AppProcess, key: string, value: string) =>
    httpCall(api.port, 'PUT', `/acme/v1/secrets/${key}`, {
      headers: { 'x-service-api-key': sk },
      body: { value },
    });
  const openStreams = () =>
    Promise.all(
      apis.map((api) =>
        openStream(api.port, '/acme/v1/stream', { headers: { 'x-service-api-key': sk } }),
      ),
    );

  /** Writes through both instances in a loop until stopped; records every answer. */
  function writeLoad() {
    const answers: Array<{ status: number; ms: number; retryAfter?: string }> = [];
    const acknowledged = new Map<string, string>();
    let running = true;
    const loops = apis.map(async (api, i) => {
      for (let n = 0; running; n++) {
        const key = `load.w${i}`;
        const value = `v${n}`;
        const started = performance.now();
        const res = await putSecret(api, key, value).catch(() => ({
          status: 0,
          headers: {} as Record<string, string | undefined>,
        }));
        const retryAfter = res.headers['retry-after'];
        answers.push({
          status: res.status,
          ms: performance.now() - started,
          ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
        });
        if (res.status === 200 || res.status === 201) acknowledged.set(key, value);
        else await new Promise((r) => setTimeout(r, 20));
      }
    });
    return {
      answers,
      acknowledged,
      async stop() {
        running = false;
        await Promise.all(loops);
      },
    };
  }

  /** Both instances serve a config the console writes now, in sync and on their streams. */
  async function bothServeNewChange(streams: SseReader[], value: string): Promise<void> {
    await admin('PUT', `${P}/configs/fault.marker`, { value, is_public: false });
    const matches = (data: string) => JSON.parse(data).key === 'fault.marker';
    const events = await Promise.all(streams.map((s) => s.next((e) => matches(e.data), 10_000)));
    for (const event of events) expect(JSON.parse(event.data).value).toBe(value);
    for (const api of apis) {
      await waitFor(async () => (await sync(api)).json().configs['fault.marker'] === value, 10_000);
    }
  }

  /**
   * Once quiet, both instances serve what the database holds: every acknowledged write, and the
   * very snapshot (ETag) of an instance that starts now and loads it whole.
   */
  async function convergedWithDatabase(acknowledged: Map<string, string>): Promise<void> {
    // Each instance serves its own writes at once, the other's within moments.
    const servesAll = async (api: AppProcess) => {
      const { secrets } = (await sync(api)).json();
      return [...acknowledged].every(([key, value]) => secrets[key]?.value === value);
    };
    for (const api of apis) await waitFor(() => servesAll(api), 5000);
    const fresh = await startAppProcess('api', env);
    try {
      const etags = await Promise.all(
        [...apis, fresh].map(async (api) => (await sync(api)).headers.etag),
      );
      expect(etags[0]).toBeDefined();
      expect(new Set(etags).size).toBe(1);
    } finally {
      await fresh.remove();
    }
  }

  it('keeps serving syncs and streams through a restart, answers writes 503 meanwhile, and misses nothing after', async () => {
    const streams = await openStreams();
    for (const s of streams) expect((await s.next()).event).toBe('resync');
    const load = writeLoad();
    await waitFor(() => load.acknowledged.size === 2, 5000);

    await server!.stop('fast');
    const down = performance.now();
    const downAnswers = load.answers.length;
    // While it is down (2 s): syncs are served from memory, streams stay open.
    while (performance.now() - down < 2000) {
      for (const api of apis) expect((await sync(api)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
    }
    const outage = load.answers.slice(downAnswers);
    // The console refuses its writes the same way.
    const consoleWrite = await adminRaw('PUT', `${P}/configs/during.outage`, { value: 1 });
    expect(consoleWrite.status).toBe(503);
    expect(consoleWrite.json()).toMatchObject({ code: 'storage_unavailable' });
    expect(Number(consoleWrite.headers['retry-after'])).toBeGreaterThan(0);
    await server!.start();

    await bothServeNewChange(streams, 'after-restart');
    await waitFor(() => load.answers.slice(-2).every((a) => a.status === 200), 10_000);
    await load.stop();

    for (const api of [...apis, consoleApp]) expect(api.exit).toBeUndefined();
    for (const s of streams) expect(s.events.filter((e) => e.event === 'resync')).toHaveLength(1);
    // Writes during the outage: refused quickly and cleanly, never a 500.
    expect(outage.length).toBeGreaterThan(0);
    const refused = outage.filter((a) => a.status !== 200);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
    expect(load.answers.filter((a) => a.status >= 500 && a.status !== 503)).toStrictEqual([]);
    expect(Math.max(...refused.map((a) => a.ms))).toBeLessThan(5000);
    // The instances said what went wrong, and that nothing was skipped.
    for (const api of apis) expect(api.output()).toContain('the same changes are offered again');
    await convergedWithDatabase(load.acknowledged);
    for (const s of streams) s.close();
  }, 60_000);

  it('carries on when every backend of the apps is terminated', async () => {
    const streams = await openStreams();
    for (const s of streams) await s.next();
    const load = writeLoad();
    await waitFor(() => load.answers.length > 4, 5000);

    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    try {
      const { rowCount } = await client.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid()`,
      );
      // The pools of three processes and the two feeds' listening connections.
      expect(rowCount).toBeGreaterThanOrEqual(5);
    } finally {
      await client.end();
    }

    await bothServeNewChange(streams, 'after-terminate');
    await waitFor(() => load.answers.slice(-2).every((a) => a.status === 200), 10_000);
    await load.stop();
    for (const app of [...apis, consoleApp]) expect(app.exit).toBeUndefined();
    expect(load.answers.filter((a) => a.status >= 500 && a.status !== 503)).toStrictEqual([]);
    await convergedWithDatabase(load.acknowledged);
    for (const s of streams) s.close();
  }, 60_000);
});
