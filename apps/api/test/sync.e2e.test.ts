import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@svc/testkit';
import { httpCall, startHarness, type Harness } from './harness.ts';

let h: Harness;
let sk: string;
let pk: string;
let serviceSk: string;
const SECRET_VALUES = [
  'sk_live_e2e_secret_value_81723',
  'file-secret-body-99182',
  'service-override-secret-55',
];

beforeAll(async () => {
  h = await startHarness();
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await h.admin(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res;
  };
  await ok('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await ok('POST', '/workspaces', { slug: 'other', name: 'Other' });
  await ok('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  await ok('POST', '/workspaces/other/projects', { slug: 'web', name: 'Web' });
  await ok('POST', '/workspaces/acme/projects/web/services', { slug: 'billing', name: 'Billing' });
  const p = '/workspaces/acme/projects/web';
  await ok('PUT', `${p}/configs/db.pool`, { value: { max: 10 }, is_public: false });
  await ok('PUT', `${p}/configs/ui.theme`, { value: 'dark', is_public: true });
  await ok('PUT', `${p}/flags/checkout.v2`, { is_active: true });
  await ok('PUT', `${p}/secrets/stripe.api_key`, { value: SECRET_VALUES[0] });
  await ok('PUT', `${p}/secrets/tls.cert`, {
    value: SECRET_VALUES[1],
    type: 'file',
    file_name: 'tls.pem',
  });
  await ok('PUT', `${p}/services/billing/configs/db.pool`, {
    value: { max: 50 },
    is_public: false,
  });
  await ok('PUT', `${p}/services/billing/flags/checkout.v2`, { is_active: false });
  await ok('PUT', `${p}/services/billing/secrets/stripe.api_key`, { value: SECRET_VALUES[2] });
  sk = await h.createKey('web', 'secret');
  pk = await h.createKey('web', 'public');
  serviceSk = await h.createKey('web', 'secret', 'billing');
  await h.syncUntil(serviceSk, () => true);
}, 30_000);

afterAll(() => h?.stop());

describe('GET /v1/sync', () => {
  it('answers the snapshot of the contract for a secret key', async () => {
    const res = await h.sync(sk);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    const body = res.json();
    expect(body).toEqual({
      revision: expect.any(Number),
      key_type: 'sk',
      configs: { 'db.pool': { max: 10 }, 'ui.theme': 'dark' },
      flags: { 'checkout.v2': true },
      secrets: {
        'stripe.api_key': { value: SECRET_VALUES[0], type: 'text', version: 1 },
        'tls.cert': { value: SECRET_VALUES[1], type: 'file', version: 1, file_name: 'tls.pem' },
      },
    });
    // A view's revision is that of the last change it shows: five project-level writes; the
    // three service-level writes after them do not alter this view.
    expect(body.revision).toBe(5);
    expect((await h.sync(serviceSk)).json().revision).toBe(8);
  });

  it('answers 304 with an empty body and the same ETag to If-None-Match', async () => {
    const first = await h.sync(sk);
    const again = await h.sync(sk, { etag: first.headers.etag as string });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
    const stale = await h.sync(sk, { etag: '"something-else"' });
    expect(stale.status).toBe(200);
  });

  it('shows a public key only public configs, flags and no secrets member', async () => {
    const body = (await h.sync(pk)).json();
    expect(body).toEqual({
      revision: expect.any(Number),
      key_type: 'pk',
      configs: { 'ui.theme': 'dark' },
      flags: { 'checkout.v2': true },
    });
    expect(JSON.stringify(body)).not.toContain('sk_live');
  });

  it('overlays the service level for a service-bound key', async () => {
    const body = (await h.sync(serviceSk)).json();
    expect(body.configs).toEqual({ 'db.pool': { max: 50 }, 'ui.theme': 'dark' });
    expect(body.flags).toEqual({ 'checkout.v2': false });
    expect(body.secrets['stripe.api_key']).toEqual({
      value: SECRET_VALUES[2],
      type: 'text',
      version: 1,
    });
    expect(body.secrets['tls.cert'].value).toBe(SECRET_VALUES[1]);
  });

  it('answers 401 problem+json to wrong, malformed, missing, revoked and foreign keys', async () => {
    const otherKey = await h.createKey('web', 'secret', undefined, 'other');
    const revoked = await h.createKey('web', 'secret');
    await h.syncUntil(revoked, () => true);
    const list = (await h.admin('GET', '/workspaces/acme/projects/web/keys')).json();
    const revokedId = list.find(
      (k: { prefix: string }) => revoked.startsWith(k.prefix) && k.prefix.length >= 10,
    ).id;
    expect(
      (await h.admin('DELETE', `/workspaces/acme/projects/web/keys/${revokedId}`)).status,
    ).toBe(204);
    await waitFor(async () => (await h.sync(revoked)).status === 401);

    const wrong = 'svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN'; // well-formed, unknown
    const badChecksum = sk.slice(0, -1) + (sk.endsWith('A') ? 'B' : 'A');
    await waitFor(async () => (await h.sync(otherKey, { slug: 'other' })).status === 200);
    for (const key of [wrong, badChecksum, 'not-a-key', '', revoked, otherKey]) {
      const res = await h.sync(key);
      expect(res.status, key).toBe(401);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(res.json()).toMatchObject({
        status: 401,
        code: 'unauthorized',
        type: expect.any(String),
        title: expect.any(String),
      });
    }
    const missing = await httpCall(h.api.port, 'GET', '/acme/v1/sync');
    expect(missing.status).toBe(401);
  });

  it('answers 404 to an unknown slug in path form and host form, before the key', async () => {
    const path = await h.sync(sk, { slug: 'nope' });
    expect(path.status).toBe(404);
    expect(path.json()).toMatchObject({ code: 'not_found', status: 404 });
    const host = await httpCall(h.api.port, 'GET', '/v1/sync', {
      headers: { host: 'nope.localhost', 'x-service-api-key': sk },
    });
    expect(host.status).toBe(404);
    const hostOk = await httpCall(h.api.port, 'GET', '/v1/sync', {
      headers: { host: 'acme.localhost:8080', 'x-service-api-key': sk },
    });
    expect(hostOk.status).toBe(200);
    expect(hostOk.json().key_type).toBe('sk');
    const noRoute = await httpCall(h.api.port, 'GET', '/acme/v1/nothing', {
      headers: { 'x-service-api-key': sk },
    });
    expect(noRoute.status).toBe(404);
  });

  it('returns a change on the next sync with a new ETag, and keeps the ETag when nothing changed', async () => {
    const before = await h.sync(sk);
    const quiet = await h.sync(sk);
    expect(quiet.headers.etag).toBe(before.headers.etag);
    const started = Date.now();
    expect(
      (
        await h.admin('PUT', '/workspaces/acme/projects/web/configs/ui.theme', {
          value: 'light',
          is_public: true,
        })
      ).status,
    ).toBe(200);
    const after = await h.syncUntil(sk, (b) => b.configs['ui.theme'] === 'light');
    expect(Date.now() - started).toBeLessThan(500);
    const projects = (await h.admin('GET', '/workspaces/acme/projects')).json();
    expect(after.revision).toBe(projects.find((p: { slug: string }) => p.slug === 'web').revision);
    expect(after.revision).toBeGreaterThan(before.json().revision);
    const res = await h.sync(sk);
    expect(res.headers.etag).not.toBe(before.headers.etag);
    expect((await h.sync(sk, { etag: before.headers.etag as string })).status).toBe(200);
    // A service-level change leaves the project-level view (and its ETag) alone.
    const projectEtag = (await h.sync(sk)).headers.etag;
    await h.admin('PUT', '/workspaces/acme/projects/web/services/billing/configs/only.billing', {
      value: 1,
      is_public: false,
    });
    await h.syncUntil(serviceSk, (b) => b.configs['only.billing'] === 1);
    expect((await h.sync(sk)).headers.etag).toBe(projectEtag);
  });

  it('answers CORS preflights for browsers', async () => {
    const res = await httpCall(h.api.port, 'OPTIONS', '/acme/v1/sync', {
      headers: {
        origin: 'https://shop.example',
        'access-control-request-headers': 'x-service-api-key',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-headers']).toMatch(/X-Service-API-Key/i);
    expect((await h.sync(pk)).headers['access-control-allow-origin']).toBe('*');
  });
});

describe('health and metrics', () => {
  it('answers /healthz, /readyz and /metrics', async () => {
    expect((await httpCall(h.api.port, 'GET', '/healthz')).status).toBe(200);
    const ready = await httpCall(h.api.port, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    // Status only on the public port: nothing of other tenants' activity.
    expect(ready.json()).toEqual({ status: 'ready' });
    expect((await httpCall(h.console.port, 'GET', '/readyz')).status).toBe(200);
    // Metrics on their own port, never on the public one.
    expect((await httpCall(h.api.port, 'GET', '/metrics')).status).toBe(404);
    const scrape = await httpCall(h.api.metricsPort!, 'GET', '/metrics');
    expect(scrape.text).toMatch(/^svc_views [1-9]/m);
    const count = async (status: number) => {
      const text = (await httpCall(h.api.metricsPort!, 'GET', '/metrics')).text;
      const prefix = `svc_http_requests_total{route="/v1/sync",status="${status}"} `;
      const line = text.split('\n').find((l) => l.startsWith(prefix));
      return line ? Number(line.slice(prefix.length)) : 0;
    };
    const [ok, notModified] = [await count(200), await count(304)];
    expect(ok).toBeGreaterThan(0);
    const first = await h.sync(sk);
    await h.sync(sk);
    await h.sync(sk, { etag: first.headers.etag as string });
    // Counted per request, and again on every scrape (not reset by it).
    expect(await count(200)).toBe(ok + 2);
    expect(await count(304)).toBe(notModified + 1);
    expect(await count(200)).toBe(ok + 2);
  });
});

describe('at rest', () => {
  it('keeps no secret value and no API key in the SQLite files', async () => {
    const files = readdirSync(h.dataDir).filter((f) => f.startsWith('svc.sqlite'));
    expect(files).toContain('svc.sqlite');
    const bytes = Buffer.concat(files.map((f) => readFileSync(join(h.dataDir, f))));
    expect(bytes.length).toBeGreaterThan(0);
    for (const needle of [...SECRET_VALUES, sk, pk, serviceSk, sk.slice(4)]) {
      expect(bytes.includes(Buffer.from(needle)), needle.slice(0, 8)).toBe(false);
    }
    // The check can fail: a value that is stored in clear (a config) is found.
    expect(bytes.includes(Buffer.from('"max":50'))).toBe(true);
  });
});
