/**
 * Malformed input is a 400 (or a 404 for what cannot exist), never a 500: whatever the route,
 * the path, the encoding or the nesting, on SQLite and on PostgreSQL (which, unlike SQLite,
 * cannot store a NUL character in text).
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStores } from '@svc/storage-postgres/testing';
import type { HttpResponse } from '@svc/testkit';
import { startTestConsole, type TestConsole } from './console-harness.ts';

const P = '/workspaces/acme/projects/web';
const stores = await testStores();

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

async function expect400(res: HttpResponse, field?: string) {
  expect(res.status, res.text).toBe(400);
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(res.json()).toMatchObject({ code: 'invalid_request', ...(field && { field }) });
}

describe.each(stores)('malformed input on $name', (store) => {
  let c: TestConsole;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const prepared = await store.prepare();
    drop = prepared.drop;
    c = await startTestConsole(prepared.env);
    await c.call('POST', '/workspaces', { body: { slug: 'acme', name: 'Acme' } });
    await c.call('POST', '/workspaces/acme/projects', { body: { slug: 'web', name: 'Web' } });
  });
  afterAll(async () => {
    await c?.stop();
    await drop?.();
  });

  it('refuses a config value nested deeper than 64 levels, however deep, with a 400', async () => {
    const ok = await c.call('PUT', `${P}/configs/deep`, { rawBody: `{"value": ${nested(64)}}` });
    expect(ok.status).toBe(200);
    for (const depth of [65, 5_000, 400_000]) {
      const res = await c.call('PUT', `${P}/configs/deep`, {
        rawBody: `{"value": ${nested(depth)}}`,
      });
      await expect400(res);
      expect(res.json().field).toMatch(/^value\[0\]/);
      expect(res.json().detail).toContain('nests deeper than 64 levels');
    }
    // Every route's body is checked, not only configs'.
    await expect400(
      await c.call('PUT', `${P}/flags/f`, {
        rawBody: `{"is_active": true, "rules": ${nested(10_000)}}`,
      }),
    );
    const array = await c.call('POST', '/workspaces', { rawBody: nested(10_000) });
    await expect400(array);
    expect(array.json().field).toMatch(/^body\[0\]/);
  });

  it('answers 400 naming the path for bad percent-encoding, on every kind of route', async () => {
    for (const [method, path] of [
      ['GET', '/workspaces/%E0%A4%A'],
      ['PATCH', '/workspaces/%ZZ'],
      ['PUT', `${P}/configs/%ZZ`],
      ['DELETE', `${P}/services/%C3/secrets/a/versions/1`],
      ['DELETE', `${P}/keys/%`],
    ] as const) {
      const res = await c.call(method, path, { body: {} });
      await expect400(res, 'path');
    }
  });

  it('answers 400 to a body that is not well-formed: bad gzip, lone surrogates', async () => {
    await expect400(
      await c.call('POST', '/workspaces', {
        headers: { 'content-encoding': 'gzip' },
        rawBody: '{"slug": "x", "name": "y"}',
      }),
      'body',
    );
    const gzipped = await c.call('POST', '/workspaces', {
      headers: { 'content-encoding': 'gzip' },
      rawBody: gzipSync('{"slug": "zipped", "name": "Zipped"}'),
    });
    expect(gzipped.status).toBe(201);
    await expect400(
      await c.call('PUT', `${P}/secrets/s`, { rawBody: '{"value": "half a pair \\ud800"}' }),
      'value',
    );
    await expect400(
      await c.call('PUT', `${P}/configs/c`, { rawBody: '{"value": {"a": ["x", "\\udc00"]}}' }),
      'value.a[1]',
    );
    await expect400(await c.call('PUT', `${P}/configs/c`, { rawBody: '{"\\ud800": 1}' }), 'body');
  });

  it('answers 400 naming the query parameter that is not what it must be', async () => {
    for (const query of ['limit=abc', 'limit=0', 'limit=1001', 'limit=1&limit=2', 'limit=null']) {
      await expect400(await c.call('GET', `/workspaces/acme/audit?${query}`), 'limit');
    }
    await expect400(await c.call('GET', `${P}/secrets?reveal=yes`), 'reveal');
    await expect400(await c.call('GET', `${P}/secrets?reveal=true&reveal=true`), 'reveal');
    expect((await c.call('GET', '/audit?limit=1000')).status).toBe(200);
    expect((await c.call('GET', `${P}/secrets?reveal=false`)).status).toBe(200);
  });

  it('refuses control characters in names and salts (PostgreSQL cannot store NUL)', async () => {
    await expect400(
      await c.call('POST', '/workspaces', { body: { slug: 'nul', name: 'a\u0000b' } }),
      'name',
    );
    await expect400(
      await c.call('POST', `${P}/keys`, { body: { kind: 'secret', name: 'line\nbreak' } }),
      'name',
    );
    await expect400(
      await c.call('PUT', `${P}/flags/f`, { body: { is_active: true, salt: 'x\u0000' } }),
      'salt',
    );
  });

  it('answers 404 for names in a path that cannot exist, without asking the database', async () => {
    for (const path of [
      '/workspaces/%00',
      '/workspaces/acme/projects/%00/configs',
      `${P}/services/%00/flags`,
    ]) {
      const res = await c.call('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    expect((await c.call('DELETE', `${P}/keys/%00`)).status).toBe(404);
    // Version numbers are 32-bit in the database: a larger one is no version, not a 500.
    const version = await c.call('DELETE', `${P}/secrets/s/versions/999999999999998`);
    expect(version.status).toBe(404);
    expect(version.json().code).toBe('version_not_found');
  });

  it('answers 405 with Allow for a known path asked with another method', async () => {
    const res = await c.call('DELETE', '/workspaces');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, POST');
    expect(res.json()).toMatchObject({ status: 405, code: 'method_not_allowed' });
    expect((await c.call('POST', `${P}/configs/x`, { body: {} })).headers.allow).toBe(
      'PUT, DELETE',
    );
    expect((await c.call('GET', '/nothing/here')).status).toBe(404);
  });
});
