import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { ViewItems, type ItemChange, type View } from '@svc/domain';
import { StreamHub, type StreamHubOptions } from '@svc/sse';
import { openStalledStream, openStream } from '@svc/sse/testing';
import {
  corsHeaders,
  parseLastEventId,
  problemOf,
  startStream,
  writeProblem,
} from '../src/index.ts';

function view(id: string, revision: number): View {
  return {
    id,
    projectId: 'p',
    serviceId: null,
    keyType: 'sk',
    revision,
    items: ViewItems.empty(),
    flags: new Map(),
    body: '{}',
    etag: '"x"',
  };
}

const upsert = (key: string, value: unknown): ItemChange => ({
  id: `config:${key}`,
  op: 'upsert',
  json: JSON.stringify(value),
});

function fakeMetrics() {
  const m = { open: 0, events: 0, dropped: 0 };
  return {
    m,
    metrics: {
      streamsOpen: { inc: () => m.open++, dec: () => m.open-- },
      streamEvents: { inc: (n: number) => (m.events += n) },
      slowStreamsDropped: { inc: () => m.dropped++ },
    },
  };
}

interface Fixture {
  hub: StreamHub;
  port: number;
  views: Map<string, View>;
  /** Every chunk written to each response, by key id. */
  writes: Map<string, unknown[]>;
  connect(
    viewId: string,
    keyId: string,
    headers?: Record<string, string>,
  ): ReturnType<typeof openStream>;
  /** A stream of a key that expires at `expiresAt` (a key minted by a workload identity). */
  connectExpiring(viewId: string, keyId: string, expiresAt: number): ReturnType<typeof openStream>;
}

let server: Server | undefined;
let hub: StreamHub | undefined;

afterEach(async () => {
  await hub?.close(100);
  server?.closeAllConnections();
  server?.close();
  server = hub = undefined;
});

/** A real local server whose one route starts a stream of `?view=` for `?key=`, as the api does. */
async function start(options: Partial<StreamHubOptions> = {}): Promise<Fixture> {
  const views = new Map<string, View>();
  const writes = new Map<string, unknown[]>();
  hub = new StreamHub({ maxAgeMs: 60_000, ...options });
  const h = hub;
  server = createServer((req, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: unknown[] = [];
    writes.set(url.searchParams.get('key')!, chunks);
    // Record what reaches the connection, through the response or straight to the socket.
    for (const target of [res, res.socket!] as Array<{ write: (chunk: unknown) => boolean }>) {
      const write = target.write.bind(target);
      target.write = (chunk: unknown, ...rest: unknown[]) => {
        if (target === res || !chunks.includes(chunk)) chunks.push(chunk);
        return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
      };
    }
    try {
      startStream(res, h, {
        view: views.get(url.searchParams.get('view')!)!,
        keyId: url.searchParams.get('key')!,
        keyExpiresAt: url.searchParams.has('expires')
          ? Number(url.searchParams.get('expires'))
          : null,
        lastEventId: parseLastEventId(req.headers['last-event-id']),
      });
    } catch (error) {
      writeProblem(res, problemOf(error)!.problem, corsHeaders);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  let n = 0;
  return {
    hub,
    port,
    views,
    writes,
    connect: (viewId, keyId, headers) =>
      openStream(port, `/?view=${viewId}&key=${keyId}&n=${n++}`, { headers }),
    connectExpiring: (viewId, keyId, expiresAt) =>
      openStream(port, `/?view=${viewId}&key=${keyId}&expires=${expiresAt}&n=${n++}`),
  };
}

describe('stream hub', () => {
  it('opens with the headers, retry and resync at the view revision', async () => {
    const f = await start();
    f.views.set('v', view('v', 5));
    const s = await f.connect('v', 'k1');
    expect(s.status).toBe(200);
    expect(s.headers).toMatchObject({
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'access-control-allow-origin': '*',
    });
    const resync = await s.next();
    expect(resync).toMatchObject({ event: 'resync', data: '{"revision":5}' });
    expect(s.raw().toString()).toBe('retry: 1000\n\nevent: resync\ndata: {"revision":5}\n\n');
    expect(f.hub.size).toBe(1);
  });

  it("encodes a view's diff once and writes that same Buffer to each of its streams", async () => {
    const { m, metrics } = fakeMetrics();
    const f = await start({ metrics });
    f.views.set('a', view('a', 1));
    f.views.set('b', view('b', 1));
    const [a1, a2, b] = await Promise.all([
      f.connect('a', 'k1'),
      f.connect('a', 'k2'),
      f.connect('b', 'k3'),
    ]);
    await Promise.all([a1.next(), a2.next(), b.next()]);
    expect(m.open).toBe(3);
    f.hub.publish({
      views: [{ view: view('a', 2), changes: [upsert('x', 1), upsert('y', 2)] }],
      revokedKeyIds: [],
    });
    const [e1, e2] = await Promise.all([a1.next(), a2.next()]);
    expect(e1).toEqual({
      event: 'change',
      id: '2',
      data: '{"revision":2,"kind":"config","key":"x","op":"upsert","value":1}',
    });
    expect(e2).toEqual(e1);
    expect((await a1.next()).data).toContain('"key":"y"');
    const [w1, w2, w3] = ['k1', 'k2', 'k3'].map((k) => f.writes.get(k)!);
    expect(w1!.at(-1)).toBeInstanceOf(Buffer);
    expect(w1!.at(-1)).toBe(w2!.at(-1)); // the same object, not an equal copy
    expect(w3!.some((chunk) => chunk === w1!.at(-1))).toBe(false); // view b got none of it
    expect(m.events).toBe(3 + 4);
  });

  it('frames chunks for HTTP/1.1 and writes plain bytes to an HTTP/1.0 client', async () => {
    const f = await start();
    f.views.set('v', view('v', 1));
    const old = connect(f.port, '127.0.0.1');
    old.write('GET /?view=v&key=k HTTP/1.0\r\n\r\n');
    let received = '';
    old.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const modern = await f.connect('v', 'k');
    await modern.next();
    while (!received.includes('event: resync')) await new Promise((r) => setTimeout(r, 5));
    f.hub.publish({
      views: [{ view: view('v', 2), changes: [upsert('x', 2)] }],
      revokedKeyIds: [],
    });
    expect((await modern.next()).id).toBe('2'); // parsed by node's HTTP client: valid chunks
    const event =
      'event: change\nid: 2\ndata: {"revision":2,"kind":"config","key":"x","op":"upsert","value":2}\n\n';
    while (!received.includes('id: 2')) await new Promise((r) => setTimeout(r, 5));
    expect(received).not.toMatch(/transfer-encoding/i);
    expect(received.endsWith(`event: resync\ndata: {"revision":1}\n\n${event}`)).toBe(true);
    old.destroy();
  });

  it('replays exactly the missed diffs after Last-Event-ID, byte for byte, then resyncs', async () => {
    const f = await start();
    f.views.set('v', view('v', 1));
    const first = await f.connect('v', 'k');
    await first.next();
    for (let r = 2; r <= 4; r++) {
      f.hub.publish({
        views: [{ view: view('v', r), changes: [upsert(`k${r}`, r)] }],
        revokedKeyIds: [],
      });
    }
    await first.next((e) => e.id === '4');
    first.close();
    const sent = first.raw().toString();
    const afterTwo = sent.slice(sent.indexOf('event: change\nid: 3'));

    f.views.set('v', view('v', 4));
    const again = await f.connect('v', 'k', { 'last-event-id': '2' });
    await again.next((e) => e.event === 'resync');
    expect(again.raw().toString()).toBe(
      `retry: 1000\n\n${afterTwo}event: resync\ndata: {"revision":4}\n\n`,
    );
    expect(again.events.map((e) => e.id)).toEqual(['3', '4', '4']);

    const current = await f.connect('v', 'k', { 'last-event-id': '4' });
    await current.next();
    expect(current.events).toEqual([{ event: 'resync', data: '{"revision":4}', id: undefined }]);
  });

  it('only resyncs when the history no longer covers Last-Event-ID', async () => {
    const f = await start({ history: { maxEntries: 2 } });
    f.views.set('v', view('v', 1));
    const s = await f.connect('v', 'k');
    for (let r = 2; r <= 5; r++) {
      f.hub.publish({
        views: [{ view: view('v', r), changes: [upsert('x', r)] }],
        revokedKeyIds: [],
      });
    }
    await s.next((e) => e.id === '5');
    f.views.set('v', view('v', 5));
    for (const id of ['2', 'garbage', '99']) {
      const late = await f.connect('v', 'k', { 'last-event-id': id });
      expect(await late.next()).toMatchObject({ event: 'resync', data: '{"revision":5}' });
      expect(late.events).toHaveLength(1);
    }
    const covered = await f.connect('v', 'k', { 'last-event-id': '3' });
    await covered.next((e) => e.event === 'resync');
    expect(covered.events.map((e) => e.id)).toEqual(['4', '5', '5']);
  });

  it("closes a revoked key's streams at once and leaves the others open", async () => {
    const f = await start();
    f.views.set('v', view('v', 1));
    const [revoked, other] = await Promise.all([f.connect('v', 'gone'), f.connect('v', 'stays')]);
    await Promise.all([revoked.next(), other.next()]);
    const started = Date.now();
    f.hub.publish({ views: [], revokedKeyIds: ['gone'] });
    expect(await revoked.ended).toBe('end');
    expect(Date.now() - started).toBeLessThan(200);
    expect(f.hub.size).toBe(1);
    f.hub.publish({
      views: [{ view: view('v', 2), changes: [upsert('x', 2)] }],
      revokedKeyIds: [],
    });
    expect((await other.next()).id).toBe('2');
  });

  it('sends keep-alive comments from one shared timer and ends streams past their age', async () => {
    const f = await start({ keepAliveMs: 40, maxAgeMs: 300, maxAgeJitter: 0.1 });
    f.views.set('v', view('v', 1));
    const started = Date.now();
    const [s1, s2] = await Promise.all([f.connect('v', 'k'), f.connect('v', 'k')]);
    expect(await s1.ended).toBe('end');
    expect(await s2.ended).toBe('end');
    const age = Date.now() - started;
    expect(age).toBeGreaterThanOrEqual(260);
    expect(age).toBeLessThan(600);
    expect(s1.comments.filter((c) => c === 'keep-alive').length).toBeGreaterThanOrEqual(3);
    expect(s1.raw().toString()).toContain('\n\n: keep-alive\n\n');
    expect(f.hub.size).toBe(0);
  });

  it("ends a minted key's streams within a second of the key's expiry, long before their age", async () => {
    const f = await start({ maxAgeMs: 60_000 });
    f.views.set('v', view('v', 1));
    const expiresAt = Date.now() + 400;
    const [minted, other] = await Promise.all([
      f.connectExpiring('v', 'minted', expiresAt),
      f.connect('v', 'static'),
    ]);
    await Promise.all([minted.next(), other.next()]);
    expect(await minted.ended).toBe('end');
    const late = Date.now() - expiresAt;
    expect(late).toBeGreaterThanOrEqual(0);
    // The sweep runs every 500 ms, so within a second; a loaded CI core may add some.
    expect(late).toBeLessThan(1500);
    expect(f.hub.size).toBe(1);
  });

  it('drops a client that stopped reading without delaying the others', async () => {
    const { m, metrics } = fakeMetrics();
    const f = await start({ maxBufferedBytes: 256 * 1024, metrics });
    f.views.set('v', view('v', 1));
    const stalled = await openStalledStream(f.port, '/?view=v&key=slow', {});
    const reader = await f.connect('v', 'fast');
    await reader.next();
    while (f.hub.size < 2) await new Promise((r) => setTimeout(r, 5));
    const big = 'x'.repeat(200 * 1024);
    let slowest = 0;
    let revision = 1;
    // Kernel buffers take a few MB first; after that the stalled client's backlog grows here.
    while (m.dropped === 0 && revision < 400) {
      revision++;
      const started = performance.now();
      f.hub.publish({
        views: [{ view: view('v', revision), changes: [upsert('big', big)] }],
        revokedKeyIds: [],
      });
      slowest = Math.max(slowest, performance.now() - started);
      const event = await reader.next((e) => e.id === String(revision));
      expect(event.data.length).toBeGreaterThan(big.length);
    }
    expect(m.dropped).toBe(1);
    expect(f.hub.size).toBe(1);
    stalled.resume(); // only a reading socket notices that the server has gone
    await stalled.closedByServer;
    // A publish that waited on the stalled socket would never return; the bound only allows for a
    // busy CI machine (GC, scheduling), not for buffering.
    expect(slowest).toBeLessThan(250);
    f.hub.publish({
      views: [{ view: view('v', revision + 1), changes: [upsert('x', 1)] }],
      revokedKeyIds: [],
    });
    expect((await reader.next()).id).toBe(String(revision + 1));
  });

  it('ends every stream cleanly on close and refuses new ones with 503', async () => {
    const f = await start();
    f.views.set('v', view('v', 1));
    const streams = await Promise.all([f.connect('v', 'a'), f.connect('v', 'b')]);
    await Promise.all(streams.map((s) => s.next()));
    await f.hub.close();
    expect(await Promise.all(streams.map((s) => s.ended))).toEqual(['end', 'end']);
    const late = await f.connect('v', 'c');
    expect(late.status).toBe(503);
    expect(late.headers['content-type']).toBe('application/problem+json');
  });
});
