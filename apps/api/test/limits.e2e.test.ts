/**
 * The v1.1 limits, each at the limit and one past it: streams per client and per process,
 * the public-key quarantine per client address, slow headers and bodies, oversized bodies
 * (answered without reading on), JSON nested too deep, evaluate-ab's body and attribute sizes.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStream, type SseReader } from '@svc/sse/testing';
import { httpCall, startHarness, type Harness } from './harness.ts';

let h: Harness;
let sk: string;
let pk: string;
let otherSk: string;
const open: SseReader[] = [];

beforeAll(async () => {
  h = await startHarness({
    STREAM_MAX_PER_CLIENT: '2',
    STREAM_MAX: '3',
    TRUST_PROXY: 'true',
    SYNC_QUARANTINE_MAX: '3',
    REQUEST_HEADERS_TIMEOUT_MS: '400',
    REQUEST_TIMEOUT_MS: '800',
  });
  await h.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await h.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  await h.admin('PATCH', '/workspaces/acme/projects/web', { ab_testing: true });
  sk = await h.createKey('web', 'secret');
  otherSk = await h.createKey('web', 'secret');
  pk = await h.createKey('web', 'public');
  await h.syncUntil(pk, () => true);
}, 30_000);

afterAll(async () => {
  for (const s of open) s.close();
  await h?.stop();
});

const stream = async (key: string, from = '10.0.0.1') => {
  const s = await openStream(h.api.port, '/acme/v1/stream', {
    headers: { 'x-service-api-key': key, 'x-forwarded-for': from },
  });
  open.push(s);
  return s;
};

describe('stream limits', () => {
  it('allows STREAM_MAX_PER_CLIENT streams per (key, address), then 429 too_many_streams', async () => {
    const [a, b] = [await stream(sk), await stream(sk)];
    expect([a.status, b.status]).toEqual([200, 200]);
    const third = await stream(sk);
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toMatch(/^\d+$/);
    expect(third.headers['content-type']).toBe('application/problem+json');
    // Another address with the same key is another client.
    expect((await stream(sk, '10.0.0.2')).status).toBe(200);
    // STREAM_MAX (3) streams are open now: the process takes no more, from anyone.
    expect((await stream(otherSk, '10.0.0.3')).status).toBe(429);
    // A stream that ends makes room again.
    a.close();
    let again = await stream(otherSk, '10.0.0.3');
    for (let i = 0; again.status !== 200 && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 20));
      again = await stream(otherSk, '10.0.0.3');
    }
    expect(again.status).toBe(200);
    for (const s of open) s.close();
  });
});

describe('sync quarantine of a public key', () => {
  it('counts per client address: one visitor in a loop does not stop the others', async () => {
    const sync = (from: string) =>
      httpCall(h.api.port, 'GET', '/acme/v1/sync', {
        headers: { 'x-service-api-key': pk, 'x-forwarded-for': `${from}, 192.0.2.1` },
      });
    for (let i = 0; i < 3; i++) expect((await sync('198.51.100.7')).status).toBe(200);
    const looping = await sync('198.51.100.7');
    expect(looping.status).toBe(429);
    expect(looping.json().code).toBe('sync_quarantined');
    expect((await sync('198.51.100.8')).status).toBe(200);
  });
});

/** Writes `parts` to a raw connection, one every `everyMs`; resolves with what came back. */
function dribble(parts: string[], everyMs: number): Promise<{ text: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(h.api.port, '127.0.0.1');
    let text = '';
    let i = 0;
    const timer = setInterval(() => {
      if (i < parts.length && !socket.destroyed) socket.write(parts[i++]!);
    }, everyMs);
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, ms: Date.now() - started });
    });
  });
}

describe('slow clients', () => {
  it('answers 408 and closes when the headers do not arrive within the limit', async () => {
    const head = `GET /acme/v1/sync HTTP/1.1\r\nHost: x\r\nX-Service-API-Key: ${sk}\r\n\r\n`;
    const { text, ms } = await dribble(head.split(''), 100);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeLessThan(3000);
  });

  it('answers 408 and closes when the body does not arrive within the limit', async () => {
    const body = JSON.stringify({ value: 'slow' });
    const head = `PUT /acme/v1/secrets/slow HTTP/1.1\r\nHost: x\r\nX-Service-API-Key: ${sk}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { text, ms } = await dribble([head, ...body.split('')], 150);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeLessThan(3000);
  });

  it('takes a request that arrives within the limits', async () => {
    const body = JSON.stringify({ value: 'in time' });
    const head = `PUT /acme/v1/secrets/timely HTTP/1.1\r\nHost: x\r\nX-Service-API-Key: ${sk}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const { text } = await dribble([head, body], 50);
    expect(text).toMatch(/^HTTP\/1\.1 201/);
  });
});

describe('bodies', () => {
  it('answers 413 over the limit and reads no further: the connection closes', async () => {
    const announced = 4 * 1024 * 1024;
    const head = `PUT /acme/v1/secrets/big HTTP/1.1\r\nHost: x\r\nX-Service-API-Key: ${sk}\r\nContent-Type: application/json\r\nContent-Length: ${announced}\r\n\r\n`;
    // Sends 1.5 MiB and then nothing: the answer must come, and the server hang up, anyway.
    const chunk = 'x'.repeat(256 * 1024);
    const { text } = await dribble([head, `{"value":"${chunk}`, ...Array(5).fill(chunk)], 5);
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(text).toMatch(/connection: close/i);
  });

  it('takes a secret write body of exactly 1 MiB and refuses one byte more', async () => {
    const envelope = '{"value":""}'.length;
    const fits = JSON.stringify({ value: 'y'.repeat(1024 * 1024 - envelope) });
    expect(Buffer.byteLength(fits)).toBe(1024 * 1024);
    const headers = { 'x-service-api-key': sk };
    // The body fits; the value (over the 64 KiB secret limit) is then the domain's 413.
    const atLimit = await httpCall(h.api.port, 'PUT', '/acme/v1/secrets/edge', {
      headers,
      rawBody: fits,
    });
    expect(atLimit.json().detail).not.toMatch(/request body/);
    const over = await httpCall(h.api.port, 'PUT', '/acme/v1/secrets/edge', {
      headers,
      rawBody: fits.replace('"}', 'y"}'),
    });
    expect(over.status).toBe(413);
    expect(over.json().detail).toMatch(/request body is over 1048576 bytes/);
  });

  it('answers 400 naming the place for JSON nested deeper than 64 levels, never 500', async () => {
    const nest = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const headers = { 'x-service-api-key': sk };
    const evaluate = (attribute: string) =>
      httpCall(h.api.port, 'POST', '/acme/v1/flags/evaluate-ab', {
        headers,
        rawBody: `{"flags":["a"],"user_id":"u","attributes":{"deep":${attribute}}}`,
      });
    // 62 levels inside the body's own two: 64 in all, accepted.
    expect((await evaluate(nest(62))).status).toBe(200);
    const deeper = await evaluate(nest(63));
    expect(deeper.status).toBe(400);
    expect(deeper.json().field).toMatch(/^attributes\.deep\[0\]/);
    // Deep enough to exhaust a recursive reader: still a clean 400.
    expect((await evaluate(nest(30_000))).status).toBe(400);
    // Brackets inside strings are text, not nesting.
    expect((await evaluate(JSON.stringify('['.repeat(500)))).status).toBe(200);
  });

  it('answers 400 naming the place for a lone surrogate, which has no UTF-8 form', async () => {
    const res = await httpCall(h.api.port, 'PUT', '/acme/v1/secrets/lone', {
      headers: { 'x-service-api-key': sk },
      rawBody: '{"value":"a\\ud800b"}',
    });
    expect(res.status).toBe(400);
    expect(res.json().field).toBe('value');
  });
});

describe('evaluate-ab limits', () => {
  const evaluate = (body: unknown) =>
    httpCall(h.api.port, 'POST', '/acme/v1/flags/evaluate-ab', {
      headers: { 'x-service-api-key': sk },
      body,
    });

  it('takes a body of 64 KiB and refuses one byte more', async () => {
    const base = { flags: ['a'], user_id: 'u', pad: '' };
    const size = Buffer.byteLength(JSON.stringify(base));
    const at = { ...base, pad: 'p'.repeat(64 * 1024 - size) };
    expect(Buffer.byteLength(JSON.stringify(at))).toBe(64 * 1024);
    expect((await evaluate(at)).status).toBe(200);
    const over = await evaluate({ ...at, pad: `${at.pad}p` });
    expect(over.status).toBe(413);
  });

  it('refuses the amplification request: a 1 MB attribute and 100 copies of a flag', async () => {
    const res = await evaluate({
      flags: Array(100).fill('a'),
      user_id: 'u',
      attributes: { version: '1.'.repeat(500_000) },
    });
    expect(res.status).toBe(413);
  });

  it('takes string attribute values of 1024 characters and refuses one more', async () => {
    const at = await evaluate({ flags: ['a'], user_id: 'u', attributes: { v: 'v'.repeat(1024) } });
    expect(at.status).toBe(200);
    const over = await evaluate({
      flags: ['a'],
      user_id: 'u',
      attributes: { v: 'v'.repeat(1025) },
    });
    expect(over.status).toBe(400);
    expect(over.json().field).toBe('attributes.v');
  });
});
