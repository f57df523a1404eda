/**
 * The client against the real console and api (in this process, temp SQLite): how fast a console
 * change reaches getFlag over the stream, the time-to-live without one, replay on reconnect,
 * revocation, and file secrets on disk.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@svc/testkit';
import { ServiceClient, silentLogger, type ServiceConfig } from '../src/index.ts';
import { startInProcess, type LiveServer } from './support/server.ts';

let server: LiveServer;
let sk: string;
let skId: string;
const P = '/workspaces/live/projects/web';
const clients: ServiceClient[] = [];

/** Counts the client's requests by path. */
function countingFetch() {
  const counts = new Map<string, number>();
  const lastEventIds: (string | undefined)[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const path = new URL(String(input)).pathname.replace(/^\/live/, '');
    counts.set(path, (counts.get(path) ?? 0) + 1);
    if (path === '/v1/stream') {
      lastEventIds.push((init?.headers as Record<string, string>)['last-event-id']);
    }
    return globalThis.fetch(input, init);
  };
  return { fetch, count: (path: string) => counts.get(path) ?? 0, lastEventIds };
}

async function client(config: Partial<ServiceConfig> = {}) {
  const c = await ServiceClient.create({
    baseUrl: `${server.apiUrl}/live`,
    apiKey: sk,
    logger: silentLogger,
    ...config,
  });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  server = await startInProcess();
  await server.admin('POST', '/workspaces', { slug: 'live', name: 'Live' });
  await server.admin('POST', '/workspaces/live/projects', { slug: 'web', name: 'Web' });
  await server.admin('PUT', `${P}/flags/checkout.v2`, { is_active: false });
  await server.admin('PUT', `${P}/secrets/tls.cert`, {
    value: 'PEM-live',
    type: 'file',
    file_name: 'tls.pem',
  });
  // Enough configs for a snapshot over 1 KiB, which the api then sends compressed.
  for (let i = 0; i < 30; i++) {
    await server.admin('PUT', `${P}/configs/service.setting_${i}`, {
      value: { enabled: true, name: `setting number ${i}` },
      is_public: false,
    });
  }
  const created = (await server.admin('POST', `${P}/keys`, { kind: 'secret' })).json();
  sk = created.key;
  skId = created.id;
  await waitFor(async () => {
    const res = await fetch(`${server.apiUrl}/live/v1/sync`, {
      headers: { 'x-service-api-key': sk },
    });
    await res.arrayBuffer();
    return res.status === 200;
  }, 5000);
}, 30_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server?.stop();
});

describe('against a live api', () => {
  it('asks for gzip and reads the gzip-encoded snapshot', async () => {
    const seen: Array<{ acceptEncoding?: string; contentEncoding: string | null }> = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const res = await globalThis.fetch(input, init);
      if (String(input).endsWith('/v1/sync')) {
        const headers = init?.headers as Record<string, string>;
        seen.push({
          acceptEncoding: headers['accept-encoding'],
          contentEncoding: res.headers.get('content-encoding'),
        });
      }
      return res;
    };
    const c = await client({ fetch, stream: false });
    expect(seen).toEqual([{ acceptEncoding: 'gzip', contentEncoding: 'gzip' }]);
    expect(c.getConfig('service.setting_7')).toEqual({ enabled: true, name: 'setting number 7' });
  });

  it('a console change is visible through getFlag within 50 ms with the stream on', async () => {
    const c = await client();
    await waitFor(() => c.isStreamConnected());
    const latencies: number[] = [];
    /** From the console's answer on: the part that is the stream and the client. */
    const afterAnswer: number[] = [];
    for (let round = 0; round < 10; round++) {
      const want = round % 2 === 0;
      const seen = new Promise<number>((resolve) => {
        const off = c.onChange(() => {
          if (c.getFlag('checkout.v2') === want) {
            off();
            resolve(performance.now());
          }
        });
      });
      const started = performance.now();
      await server.admin('PUT', `${P}/flags/checkout.v2`, { is_active: want });
      const answered = performance.now();
      const arrived = await seen;
      latencies.push(arrived - started);
      afterAnswer.push(arrived - answered);
    }
    latencies.sort((a, b) => a - b);
    const ms = (list: number[]) => list.map((l) => l.toFixed(1)).join(' ');
    console.info(
      `console PUT start -> getFlag: ${ms(latencies)} ms; after its answer: ${ms(afterAnswer)} ms`,
    );
    // The console's PUT alone takes 5-50 ms here (its SQLite commit); once it has answered, the
    // change is committed and typically reaches getFlag in under a millisecond. The median must
    // be within 50 ms; the slowest round may also carry a GC pause or a busy CI core, but a
    // missed event (falling back to a sync or a reconnect) would take far longer than 250 ms.
    const afterSorted = [...afterAnswer].sort((a, b) => a - b);
    expect(afterSorted[Math.floor(afterSorted.length / 2)]).toBeLessThan(50);
    expect(afterSorted.at(-1)).toBeLessThan(250);
    // From before the console's request, its own write (slow on a loaded CI machine) is inside.
    expect(latencies[Math.floor(latencies.length / 2)]).toBeLessThan(250);
  });

  it('with the stream off, the time-to-live re-sync picks a change up', async () => {
    const counting = countingFetch();
    const c = await client({ stream: false, cacheTtlMs: 200, fetch: counting.fetch });
    const before = c.getFlag('checkout.v2');
    const changedAt = performance.now();
    await server.admin('PUT', `${P}/flags/checkout.v2`, { is_active: !before });
    await waitFor(() => c.getFlag('checkout.v2') === !before, 3000);
    const elapsed = performance.now() - changedAt;
    expect(elapsed).toBeLessThan(1000);
    expect(counting.count('/v1/stream')).toBe(0);
    expect(counting.count('/v1/sync')).toBeGreaterThanOrEqual(2);
  });

  it('reconnects with Last-Event-ID and gets the missed changes replayed, without a sync', async () => {
    const counting = countingFetch();
    const c = await client({ fetch: counting.fetch, cacheTtlMs: 60_000 });
    await waitFor(() => c.isStreamConnected());
    await c.disconnectStream();
    const revisionSeen = counting.lastEventIds[0];
    await server.admin('PUT', `${P}/configs/replayed`, { value: { n: 1 }, is_public: false });
    await new Promise((r) => setTimeout(r, 50));
    expect(c.getConfig('replayed')).toBeUndefined();
    c.connectStream();
    await waitFor(() => c.getConfig('replayed') !== undefined);
    expect(c.getConfig('replayed')).toEqual({ n: 1 });
    expect(counting.lastEventIds).toHaveLength(2);
    expect(Number(counting.lastEventIds[1])).toBe(Number(revisionSeen));
    expect(counting.count('/v1/sync')).toBe(1);
  });

  it('file secrets exist with mode 0600 while open and are gone after close()', async () => {
    const c = await client({ stream: false });
    const path = c.getSecretFilePath('tls.cert')!;
    expect(existsSync(path)).toBe(true);
    expect((statSync(path).mode & 0o777).toString(8)).toBe('600');
    expect((statSync(dirname(path)).mode & 0o777).toString(8)).toBe('700');
    await c.close();
    expect(existsSync(path)).toBe(false);
    expect(existsSync(dirname(dirname(path)))).toBe(false);
  });

  it('a revoked key: the stream ends and is not reconnected; the cache keeps serving', async () => {
    const counting = countingFetch();
    const c = await client({
      fetch: counting.fetch,
      reconnect: { initialDelayMs: 20, maxDelayMs: 40 },
    });
    await waitFor(() => c.isStreamConnected());
    const flag = c.getFlag('checkout.v2');
    await server.admin('DELETE', `${P}/keys/${skId}`);
    await waitFor(() => !c.isStreamConnected(), 3000);
    await waitFor(() => counting.count('/v1/stream') >= 2, 3000);
    const attempts = counting.count('/v1/stream');
    await new Promise((r) => setTimeout(r, 300));
    expect(counting.count('/v1/stream')).toBe(attempts);
    expect(c.getFlag('checkout.v2')).toBe(flag);
  });
});
