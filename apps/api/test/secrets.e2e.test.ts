import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@svc/testkit';
import { httpCall, startHarness, type Harness } from './harness.ts';

let h: Harness;
let sk: string;
let pk: string;
let billingSk: string;
const P = '/workspaces/acme/projects/web';
const written: string[] = [];

const put = (key: string, body: unknown, apiKey = sk, slug = 'acme') =>
  httpCall(h.api.port, 'PUT', `/${slug}/v1/secrets/${key}`, {
    headers: { 'x-service-api-key': apiKey },
    body,
  });
const del = (path: string, apiKey = sk) =>
  httpCall(h.api.port, 'DELETE', `/acme/v1/secrets/${path}`, {
    headers: { 'x-service-api-key': apiKey },
  });
const value = (v: string) => {
  written.push(v);
  return v;
};

beforeAll(async () => {
  h = await startHarness({ WRITE_RATE_LIMIT_MAX: '1000' });
  await h.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await h.admin('POST', `/workspaces/acme/projects`, { slug: 'web', name: 'Web' });
  await h.admin('POST', `${P}/services`, { slug: 'billing', name: 'Billing' });
  sk = await h.createKey('web', 'secret');
  pk = await h.createKey('web', 'public');
  billingSk = await h.createKey('web', 'secret', 'billing');
  await h.syncUntil(billingSk, () => true);
  await h.syncUntil(pk, () => true);
}, 30_000);

afterAll(() => h?.stop());

describe('secret write API', () => {
  it('creates (201), adds versions (200), and the next sync serves them', async () => {
    const created = await put('db.password', { value: value('pw-version-one-3812') });
    expect(created.status).toBe(201);
    const { revision } = created.json();
    expect(created.json()).toEqual({ key: 'db.password', version: 1, type: 'text', revision });
    const updated = await put('db.password', { value: value('pw-version-two-5521') });
    expect(updated.status).toBe(200);
    expect(updated.json()).toEqual({
      key: 'db.password',
      version: 2,
      type: 'text',
      revision: revision + 1,
    });
    // Read-your-writes: the write answered once this instance serves it.
    const body = (await h.sync(sk)).json();
    expect(body.revision).toBe(revision + 1);
    expect(body.secrets['db.password']).toEqual({
      value: 'pw-version-two-5521',
      type: 'text',
      version: 2,
    });
  });

  it('checks expected_version (0 = must not exist) with 409 version_conflict', async () => {
    const conflict = await put('db.password', {
      value: value('pw-conflict-9912'),
      expected_version: 1,
    });
    expect(conflict.status).toBe(409);
    expect(conflict.json()).toMatchObject({ code: 'version_conflict' });
    expect(conflict.text).not.toContain('pw-');
    expect((await put('db.password', { value: 'x', expected_version: 0 })).status).toBe(409);
    expect(
      (await put('fresh.secret', { value: value('fresh-7731'), expected_version: 0 })).status,
    ).toBe(201);
    const ok = await put('db.password', {
      value: value('pw-version-three-1209'),
      expected_version: 2,
    });
    expect(ok.status).toBe(200);
    expect(ok.json().version).toBe(3);
  });

  it('deleting the current version serves the previous one; numbers are never reused', async () => {
    expect((await del('db.password/versions/3')).status).toBe(204);
    let body = await h.syncUntil(sk, (b) => b.secrets['db.password']?.version === 2);
    expect(body.secrets['db.password'].value).toBe('pw-version-two-5521');
    expect((await del('db.password/versions/3')).json()).toMatchObject({
      status: 404,
      code: 'version_not_found',
    });
    expect((await del('db.password/versions/abc')).status).toBe(400);
    const again = await put('db.password', { value: value('pw-version-four-0042') });
    expect(again.json().version).toBe(4);
    expect((await del('db.password/versions/1')).status).toBe(204);
    const listing = (await h.admin('GET', `${P}/secrets`)).json();
    expect(listing.find((s: { key: string }) => s.key === 'db.password').versions).toEqual([2, 4]);
    // Deleting the last remaining versions deletes the secret.
    expect((await del('db.password/versions/4')).status).toBe(204);
    expect((await del('db.password/versions/2')).status).toBe(204);
    body = await h.syncUntil(sk, (b) => !('db.password' in b.secrets));
    expect((await del('db.password')).json()).toMatchObject({
      status: 404,
      code: 'secret_not_found',
    });
    expect((await put('db.password', { value: value('pw-version-five-7777') })).json()).toEqual({
      key: 'db.password',
      version: 5,
      revision: expect.any(Number),
      type: 'text',
    });
  });

  it('deletes a whole secret with every version (204), then 404', async () => {
    expect((await del('fresh.secret')).status).toBe(204);
    expect((await del('fresh.secret')).json().code).toBe('secret_not_found');
    await h.syncUntil(sk, (b) => !('fresh.secret' in b.secrets));
  });

  it('writes a service-bound key into its service scope', async () => {
    expect(
      (await put('payments.token', { value: value('svc-scope-token-661') }, billingSk)).status,
    ).toBe(201);
    const serviceLevel = (await h.admin('GET', `${P}/services/billing/secrets`)).json();
    expect(serviceLevel.map((s: { key: string }) => s.key)).toEqual(['payments.token']);
    const projectLevel = (await h.admin('GET', `${P}/secrets`)).json();
    expect(projectLevel.map((s: { key: string }) => s.key)).not.toContain('payments.token');
    await h.syncUntil(
      billingSk,
      (b) => b.secrets['payments.token']?.value === 'svc-scope-token-661',
    );
    expect((await h.sync(sk)).json().secrets['payments.token']).toBeUndefined();
  });

  it('answers 403 to a public key on every write endpoint, and 401/404 as the contract says', async () => {
    for (const res of [
      await put('x', { value: 'v' }, pk),
      await del('x', pk),
      await del('x/versions/1', pk),
    ]) {
      expect(res.status).toBe(403);
      expect(res.json().code).toBe('public_key_forbidden');
    }
    expect(
      (await put('x', { value: 'v' }, 'svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN')).status,
    ).toBe(401);
    expect((await put('x', { value: 'v' }, sk, 'nope')).status).toBe(404);
  });

  it('answers 400 naming the field and 413 over the limits', async () => {
    expect((await put('x', { value: 42 })).json()).toMatchObject({ status: 400, field: 'value' });
    expect((await put('x', { value: 'v', extra: true })).json()).toMatchObject({
      status: 400,
      field: 'extra',
    });
    expect((await put('x', { value: 'v', expected_version: -1 })).json()).toMatchObject({
      field: 'expected_version',
    });
    expect((await put('bad..key', { value: 'v' })).json()).toMatchObject({
      status: 400,
      field: 'key',
    });
    const big = await put('big', { value: 'x'.repeat(64 * 1024 + 1) });
    expect(big.status).toBe(413);
    expect(big.json().code).toBe('payload_too_large');
    expect((await put('big', { value: 'x'.repeat(1024 * 1024 + 1) })).status).toBe(413);
    const notJson = await httpCall(h.api.port, 'PUT', '/acme/v1/secrets/x', {
      headers: { 'x-service-api-key': sk },
      rawBody: '{"value": ',
    });
    expect(notJson.json()).toMatchObject({ status: 400, field: 'body' });
  });

  it('answers 402 while the workspace billing is overdue; sync keeps working', async () => {
    await h.admin('PATCH', '/workspaces/acme', { billing_status: 'overdue' });
    await waitFor(async () => (await put('y', { value: 'v' })).status === 402);
    expect((await put('y', { value: 'v' })).json().code).toBe('billing_overdue');
    expect((await h.sync(sk)).status).toBe(200);
    await h.admin('PATCH', '/workspaces/acme', { billing_status: 'ok' });
    await waitFor(
      async () => (await put('y', { value: value('after-billing-ok-88') })).status < 300,
    );
  });

  it('keeps no written value in the SQLite files', () => {
    const files = readdirSync(h.dataDir).filter((f) => f.startsWith('svc.sqlite'));
    const bytes = Buffer.concat(files.map((f) => readFileSync(join(h.dataDir, f))));
    expect(written.length).toBeGreaterThan(5);
    for (const v of written) expect(bytes.includes(Buffer.from(v)), v).toBe(false);
  });
});

describe('write rate limit', () => {
  it('answers the 31st write in the window 429 with a Retry-After that, honoured, lets the next through', async () => {
    const limited = await startHarness({
      WRITE_RATE_LIMIT_MAX: '30',
      WRITE_RATE_LIMIT_WINDOW_S: '2',
    });
    try {
      await limited.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
      await limited.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
      const key = await limited.createKey('web', 'secret');
      const other = await limited.createKey('web', 'secret');
      await limited.syncUntil(other, () => true);
      const write = (k: string) =>
        httpCall(limited.api.port, 'PUT', '/acme/v1/secrets/s', {
          headers: { 'x-service-api-key': k },
          body: { value: 'v' },
        });
      for (let i = 0; i < 30; i++) expect((await write(key)).status).toBeLessThan(300);
      const refused = await write(key);
      expect(refused.status).toBe(429);
      expect(refused.json().code).toBe('rate_limited');
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(2);
      expect((await write(other)).status).toBe(200); // per key
      await new Promise((r) => setTimeout(r, retryAfter * 1000 + 50));
      expect((await write(key)).status).toBe(200);
    } finally {
      await limited.stop();
    }
  }, 20_000);
});

describe('sync quarantine', () => {
  it('quarantines a key that syncs in a loop (304s count), not the others, and it recovers', async () => {
    const q = await startHarness({
      SYNC_QUARANTINE_MAX: '5',
      SYNC_QUARANTINE_WINDOW_S: '60',
      SYNC_QUARANTINE_S: '1',
    });
    try {
      await q.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
      await q.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
      const looping = await q.createKey('web', 'secret');
      const calm = await q.createKey('web', 'public');
      await waitFor(async () => (await q.sync(calm)).status === 200);
      await waitFor(async () => (await q.sync(looping)).status === 200); // sync 1 (earlier 401s do not count)
      const etag = (await q.sync(looping)).headers.etag as string; // 2
      for (let i = 0; i < 3; i++) expect((await q.sync(looping, { etag })).status).toBe(304); // 3..5
      const refused = await q.sync(looping, { etag });
      expect(refused.status).toBe(429);
      expect(refused.json().code).toBe('sync_quarantined');
      expect(Number(refused.headers['retry-after'])).toBe(1);
      expect((await q.sync(calm)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1050));
      expect((await q.sync(looping)).status).toBe(200);
    } finally {
      await q.stop();
    }
  }, 20_000);
});
