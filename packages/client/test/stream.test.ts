/** The change stream against a scripted server: events, resync, reconnects, silence, 401. */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '@svc/testkit';
import { ServiceClient, type ChangeSet, type ServiceConfig } from '../src/index.ts';
import { Backoff } from '../src/backoff.ts';
import { BASE_URL, FakeService, SK, memoryLogger, problem, sleep } from './support/fake-service.ts';

const clients: ServiceClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

const fast = {
  initialDelayMs: 20,
  maxDelayMs: 100,
  resetAfterMs: 60_000,
  silenceTimeoutMs: 45_000,
};

async function start(service: FakeService, config: Partial<ServiceConfig> = {}) {
  const log = memoryLogger();
  const client = await ServiceClient.create({
    baseUrl: BASE_URL,
    apiKey: SK,
    fetch: service.fetch,
    logger: log.logger,
    reconnect: fast,
    ...config,
  });
  clients.push(client);
  await waitFor(() => client.isStreamConnected());
  return { client, log };
}

function service(): FakeService {
  const s = new FakeService();
  s.snapshot = {
    revision: 10,
    key_type: 'sk',
    configs: { a: 1 },
    flags: { f: false },
    secrets: {},
  };
  return s;
}

describe('stream', () => {
  it('connects with the SSE headers and Last-Event-ID at the cache revision; no sync when resync matches', async () => {
    const s = service();
    await start(s);
    const request = s.lastStream.request;
    expect(request.headers).toMatchObject({
      accept: 'text/event-stream',
      'x-service-api-key': SK,
      'last-event-id': '10',
    });
    await sleep(30);
    expect(s.count('/v1/sync')).toBe(1);
  });

  it('applies change events of every kind, and ignores older ones', async () => {
    const s = service();
    const { client } = await start(s);
    const seen: ChangeSet[] = [];
    client.onChange((c) => seen.push(c));
    const stream = s.lastStream;
    // Two events of one revision in one chunk, as the server writes a multi-item change.
    stream.send(
      'event: change\nid: 11\ndata: {"revision":11,"kind":"flag","key":"f","op":"upsert","value":true}\n\n' +
        'event: change\nid: 11\ndata: {"revision":11,"kind":"config","key":"a","op":"delete"}\n\n',
    );
    stream.event(
      'change',
      {
        revision: 12,
        kind: 'secret',
        key: 's',
        op: 'upsert',
        value: 'v',
        type: 'text',
        version: 3,
      },
      12,
    );
    stream.event('change', { revision: 9, kind: 'flag', key: 'f', op: 'upsert', value: false }, 9);
    await waitFor(() => {
      try {
        return client.getSecret('s') === 'v';
      } catch {
        return false;
      }
    });
    await sleep(10);
    expect(client.getFlag('f')).toBe(true);
    expect(client.getConfig('a')).toBeUndefined();
    expect(seen.map((c) => [c.source, c.revision, c.changes.length])).toEqual([
      ['stream', 11, 2],
      ['stream', 12, 1],
    ]);
  });

  it('syncs when resync names another revision', async () => {
    const s = service();
    const { client } = await start(s);
    s.snapshot = { ...s.snapshot, revision: 14, flags: { f: true } };
    s.lastStream.event('resync', { revision: 14 });
    await waitFor(() => client.getFlag('f'));
    expect(s.count('/v1/sync')).toBe(2);
    expect(s.requests.at(-1)!.headers['if-none-match']).toBeDefined();
  });

  it('logs a malformed change and keeps the stream', async () => {
    const s = service();
    const { client, log } = await start(s);
    s.lastStream.send('event: change\ndata: {not json\n\n');
    s.lastStream.event('change', {
      revision: 11,
      kind: 'flag',
      key: 'f',
      op: 'upsert',
      value: 'yes',
    });
    s.lastStream.event('change', {
      revision: 11,
      kind: 'flag',
      key: 'g',
      op: 'upsert',
      value: true,
    });
    await waitFor(() => client.getFlag('g'));
    expect(log.lines.filter((l) => l.level === 'error')).toHaveLength(2);
    expect(s.streams).toHaveLength(1);
  });

  it('reconnects with Last-Event-ID after the server ends the stream, and catches up', async () => {
    const s = service();
    const { client } = await start(s);
    s.lastStream.event(
      'change',
      { revision: 11, kind: 'flag', key: 'f', op: 'upsert', value: true },
      11,
    );
    await waitFor(() => client.getFlag('f'));
    s.lastStream.end();
    await waitFor(() => s.streams.length === 2);
    expect(s.lastStream.request.headers['last-event-id']).toBe('11');
    await waitFor(() => client.isStreamConnected());
  });

  it('reconnects at once after a connection that reached the server maximum age', async () => {
    const s = service();
    const { client } = await start(s, {
      reconnect: { initialDelayMs: 5000, maxDelayMs: 5000, resetAfterMs: 50 },
    });
    await sleep(80);
    s.lastStream.end();
    await waitFor(() => s.streams.length === 2, 1000);
    await waitFor(() => client.isStreamConnected());
  });

  it('treats silence as a dead connection and reconnects', async () => {
    const s = service();
    s.greet = false;
    const { client, log } = await start(s, { reconnect: { ...fast, silenceTimeoutMs: 80 } });
    await waitFor(() => s.streams.length >= 2, 2000);
    expect(log.lines.some((l) => /no data for 80 ms/.test(l.message))).toBe(true);
    // A keep-alive comment is data: it holds the connection open.
    const stream = s.lastStream;
    for (let i = 0; i < 5; i++) {
      stream.send(': keep-alive\n\n');
      await sleep(40);
    }
    expect(stream.closed).toBe(false);
    expect(client.isStreamConnected()).toBe(true);
  });

  it('backs off between failed connections and stops for good on 401', async () => {
    const s = service();
    const { client, log } = await start(s);
    s.streamStatus = 500;
    s.lastStream.end();
    await waitFor(() => s.count('/v1/stream') >= 4, 3000);
    expect(client.isStreamConnected()).toBe(false);
    s.streamStatus = 401;
    await waitFor(() => log.lines.some((l) => /not reconnecting/.test(l.message)), 3000);
    const attempts = s.count('/v1/stream');
    await sleep(300);
    expect(s.count('/v1/stream')).toBe(attempts);
    // An explicit connectStream() tries again.
    s.streamStatus = 200;
    client.connectStream();
    await waitFor(() => client.isStreamConnected());
  });

  it('stops on 404 too', async () => {
    const s = service();
    const { log } = await start(s);
    s.respond = (r) => (r.path === '/v1/stream' ? problem(404, 'not_found') : undefined);
    s.lastStream.end();
    await waitFor(() => log.lines.some((l) => /not reconnecting/.test(l.message)));
    const attempts = s.count('/v1/stream');
    await sleep(200);
    expect(s.count('/v1/stream')).toBe(attempts);
  });

  it('pauses the time-to-live while connected and resumes it when the stream goes', async () => {
    const s = service();
    const { client } = await start(s, { cacheTtlMs: 40 });
    await sleep(150);
    expect(s.count('/v1/sync')).toBe(1);
    await client.disconnectStream();
    expect(client.isStreamConnected()).toBe(false);
    await sleep(150);
    expect(s.count('/v1/sync')).toBeGreaterThanOrEqual(2);
  });

  it('keeps stream changes that are newer than a sync answer still on its way', async () => {
    const s = service();
    const { client } = await start(s);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const stale = JSON.stringify({ ...s.snapshot, revision: 10, flags: { f: false } });
    s.respond = (r) =>
      r.path === '/v1/sync'
        ? (new Response(
            new ReadableStream({
              async start(c) {
                await gate;
                c.enqueue(new TextEncoder().encode(stale));
                c.close();
              },
            }),
            { headers: { etag: '"old"' } },
          ) as Response)
        : undefined;
    const syncing = client.sync();
    await sleep(10);
    s.lastStream.event(
      'change',
      { revision: 11, kind: 'flag', key: 'f', op: 'upsert', value: true },
      11,
    );
    await waitFor(() => client.getFlag('f'));
    release();
    await syncing;
    expect(client.getFlag('f')).toBe(true);
  });

  it('connectStream and disconnectStream are idempotent', async () => {
    const s = service();
    const { client } = await start(s);
    client.connectStream();
    client.connectStream();
    await sleep(30);
    expect(s.streams).toHaveLength(1);
    await Promise.all([client.disconnectStream(), client.disconnectStream()]);
    expect(s.lastStream.closed).toBe(true);
    client.connectStream();
    client.connectStream();
    await waitFor(() => client.isStreamConnected());
    expect(s.streams).toHaveLength(2);
  });

  it('close() ends the stream and the client', async () => {
    const s = service();
    const { client } = await start(s);
    await client[Symbol.asyncDispose]();
    expect(client.isStreamConnected()).toBe(false);
    expect(s.lastStream.closed).toBe(true);
    expect(() => client.connectStream()).toThrow(/closed/);
    await client.close();
  });
});

describe('stream over the real fetch', () => {
  it('disconnectStream() ends the connection even after the Response was garbage-collected', () => {
    const fixture = fileURLToPath(new URL('./fixtures/gc-disconnect.ts', import.meta.url));
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', fixture], {
      encoding: 'utf8',
    });
    expect(Number(out.trim())).toBeLessThan(1000);
  }, 20_000);
});

describe('Backoff', () => {
  const options = { initialDelayMs: 1000, maxDelayMs: 30_000, resetAfterMs: 60_000 };

  it('doubles from 1 s to 30 s with jitter in the upper half', () => {
    const low = new Backoff(options, () => 0);
    expect([1, 2, 3, 4, 5, 6, 7].map(() => low.next())).toEqual([
      500, 1000, 2000, 4000, 8000, 15_000, 15_000,
    ]);
    const high = new Backoff(options, () => 1);
    expect([1, 2, 3, 4, 5, 6, 7].map(() => high.next())).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
  });

  it('starts over after a connection that lasted 60 s, not after a short one', () => {
    const b = new Backoff(options, () => 1);
    b.next();
    b.next();
    b.connectionEnded(59_000);
    expect(b.next()).toBe(4000);
    b.connectionEnded(60_000);
    expect(b.next()).toBe(1000);
  });
});
