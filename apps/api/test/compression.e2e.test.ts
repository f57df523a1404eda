import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpCall, startHarness, type Harness } from './harness.ts';

let h: Harness;
let key: string;

const sync = (headers: Record<string, string>) =>
  httpCall(h.api.port, 'GET', '/acme/v1/sync', {
    headers: { 'x-service-api-key': key, ...headers },
  });

beforeAll(async () => {
  h = await startHarness();
  await h.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await h.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  // About 6 kB of snapshot: compressed at once, when the revision's answers are made.
  for (let i = 0; i < 60; i++) {
    await h.admin('PUT', `/workspaces/acme/projects/web/configs/service.setting_${i}`, {
      value: { enabled: i % 2 === 0, limit: i * 10, name: `setting number ${i}` },
      is_public: false,
    });
  }
  key = await h.createKey('web', 'secret');
  await h.syncUntil(key, (body) => Object.keys(body.configs).length === 60);
}, 60_000);

afterAll(() => h?.stop());

describe('GET /v1/sync with Accept-Encoding', () => {
  it('answers gzip and brotli bytes that decode to the identity body, with Vary', async () => {
    const plain = await sync({});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    expect(plain.bytes.length).toBeGreaterThan(4000);

    const gz = await sync({ 'accept-encoding': 'gzip' });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toBe('Accept-Encoding');
    expect(Number(gz.headers['content-length'])).toBe(gz.bytes.length);
    expect(gunzipSync(gz.bytes).toString()).toBe(plain.text);
    expect(gz.bytes.length * 5).toBeLessThan(plain.bytes.length);

    const br = await sync({ 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.bytes).toString()).toBe(plain.text);

    expect(new Set([plain.headers.etag, gz.headers.etag, br.headers.etag]).size).toBe(3);
  });

  it('answers 304 to the ETag of any encoding of the current revision', async () => {
    const plain = await sync({});
    const gz = await sync({ 'accept-encoding': 'gzip' });
    const br = await sync({ 'accept-encoding': 'br' });
    for (const etag of [plain.headers.etag, gz.headers.etag, br.headers.etag] as string[]) {
      for (const accept of [undefined, 'gzip', 'br']) {
        const res = await sync({
          'if-none-match': etag,
          ...(accept ? { 'accept-encoding': accept } : {}),
        });
        expect(res.status).toBe(304);
        expect(res.bytes.length).toBe(0);
        expect(res.headers.vary).toBe('Accept-Encoding');
        // The 304 names the representation this request would have received.
        const expected = accept === 'gzip' ? gz : accept === 'br' ? br : plain;
        expect(res.headers.etag).toBe(expected.headers.etag);
      }
    }
  });

  it('serves the next revision compressed after a change, and old ETags no longer match', async () => {
    const before = await sync({ 'accept-encoding': 'gzip' });
    await h.admin('PUT', '/workspaces/acme/projects/web/configs/service.setting_0', {
      value: { enabled: false, limit: 1, name: 'changed' },
      is_public: false,
    });
    await h.syncUntil(key, (body) => body.configs['service.setting_0'].name === 'changed');
    const after = await sync({
      'accept-encoding': 'gzip',
      'if-none-match': before.headers.etag as string,
    });
    expect(after.status).toBe(200);
    expect(after.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(after.bytes).toString()).configs['service.setting_0'].name).toBe(
      'changed',
    );
  });
});
