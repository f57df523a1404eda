/** The cache and sync(): ETag, 304, the time-to-live, quarantine, listeners, frozen values. */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import {
  ServiceClient,
  ServiceQuarantinedError,
  ServiceUnauthorizedError,
  type ChangeSet,
  type ServiceConfig,
} from '../src/index.ts';
import { BASE_URL, FakeService, SK, memoryLogger, problem, sleep } from './support/fake-service.ts';

const clients: ServiceClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

async function start(service: FakeService, config: Partial<ServiceConfig> = {}) {
  const log = memoryLogger();
  const client = await ServiceClient.create({
    baseUrl: BASE_URL,
    apiKey: SK,
    stream: false,
    fetch: service.fetch,
    logger: log.logger,
    ...config,
  });
  clients.push(client);
  return { client, log };
}

function service(): FakeService {
  const s = new FakeService();
  s.snapshot = {
    revision: 5,
    key_type: 'sk',
    configs: { 'db.pool': { max: 10, hosts: ['a'] }, 'ui.theme': 'dark', nothing: null },
    flags: { 'checkout.v2': true },
    secrets: { 'stripe.key': { value: 'sk_live_1', type: 'text', version: 1 } },
  };
  return s;
}

describe('sync()', () => {
  it('sends the key and, once it has one, If-None-Match; a 304 keeps the cache and counts as synced', async () => {
    const s = service();
    const { client } = await start(s);
    expect(s.requests[0]!.headers['x-service-api-key']).toBe(SK);
    expect(s.requests[0]!.headers['if-none-match']).toBeUndefined();
    const first = client.getSyncedAt();
    await sleep(5);
    await client.sync();
    expect(s.requests[1]!.headers['if-none-match']).toBe(s.etag());
    expect(client.getConfig('ui.theme')).toBe('dark');
    expect(client.getSyncedAt().getTime()).toBeGreaterThan(first.getTime());
  });

  it('replaces the whole cache at once', async () => {
    const s = service();
    const { client } = await start(s);
    const before = client.getAllConfigs();
    s.snapshot = { ...s.snapshot, revision: 6, configs: { 'ui.theme': 'light' }, flags: {} };
    await client.sync();
    expect(client.getAllConfigs()).toEqual({ 'ui.theme': 'light' });
    expect(client.getAllFlags()).toEqual({});
    expect(client.getFlag('checkout.v2')).toBe(false);
    // What a caller took before is a copy: untouched by the swap.
    expect(before).toEqual({
      'db.pool': { max: 10, hosts: ['a'] },
      'ui.theme': 'dark',
      nothing: null,
    });
  });

  it('getAllSecrets: every secret of the cache, as a copy', async () => {
    const s = service();
    const { client } = await start(s);
    const before = client.getAllSecrets();
    expect(before).toEqual({ 'stripe.key': 'sk_live_1' });
    s.snapshot = {
      ...s.snapshot,
      revision: 6,
      secrets: {
        'stripe.key': { value: 'sk_live_2', type: 'text', version: 2 },
        'tls.cert': { value: 'PEM', type: 'file', version: 1, file_name: 'tls.pem' },
      },
    };
    await client.sync();
    expect(client.getAllSecrets()).toEqual({ 'stripe.key': 'sk_live_2', 'tls.cert': 'PEM' });
    expect(before).toEqual({ 'stripe.key': 'sk_live_1' });
  });

  it('distinguishes an absent config (undefined) from a JSON null', async () => {
    const { client } = await start(service());
    expect(client.getConfig('nothing')).toBeNull();
    expect(client.getConfig('absent')).toBeUndefined();
  });

  it('handles a key named __proto__ like any other', async () => {
    const s = service();
    s.respond = (r) =>
      r.path === '/v1/sync'
        ? new Response(
            '{"revision":1,"key_type":"sk","configs":{"__proto__":{"a":1}},"flags":{"__proto__":true},"secrets":{}}',
          )
        : undefined;
    const { client } = await start(s);
    expect(client.getConfig('__proto__')).toEqual({ a: 1 });
    expect(client.getFlag('__proto__')).toBe(true);
    expect(Object.hasOwn(client.getAllConfigs(), '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(client.getAllFlags())).toBe(Object.prototype);
  });

  it('shares frozen values, so no caller can change the cache', async () => {
    const { client } = await start(service());
    const pool = client.getConfig('db.pool') as { max: number; hosts: string[] };
    expect(() => {
      pool.max = 99;
    }).toThrow(TypeError);
    expect(() => pool.hosts.push('b')).toThrow(TypeError);
    expect(client.getConfig('db.pool')).toEqual({ max: 10, hosts: ['a'] });
  });

  it('coalesces calls made while a sync runs into one follow-up sync', async () => {
    const s = service();
    const { client } = await start(s);
    await Promise.all([client.sync(), client.sync(), client.sync(), client.sync()]);
    expect(s.count('/v1/sync')).toBe(3);
  });

  it('keeps the cache when a sync fails', async () => {
    const s = service();
    const { client } = await start(s);
    s.respond = () => problem(401, 'unauthorized');
    await expect(client.sync()).rejects.toBeInstanceOf(ServiceUnauthorizedError);
    expect(client.getFlag('checkout.v2')).toBe(true);
  });
});

describe('time-to-live', () => {
  it('re-syncs in the background while no stream is connected, one per time-to-live', async () => {
    const s = service();
    await start(s, { cacheTtlMs: 60 });
    await sleep(330);
    // 304s each time; not faster than the time-to-live.
    const syncs = s.count('/v1/sync');
    expect(syncs).toBeGreaterThanOrEqual(4);
    expect(syncs).toBeLessThanOrEqual(7);
  });

  it('a manual sync (a 304 too) restarts the time-to-live', async () => {
    const s = service();
    const { client } = await start(s, { cacheTtlMs: 300 });
    await sleep(150);
    await client.sync();
    await sleep(200); // 350 ms after create(): the original time-to-live has passed
    expect(s.count('/v1/sync')).toBe(2);
    await sleep(250); // 450 ms after the manual sync
    expect(s.count('/v1/sync')).toBe(3);
  });

  it('retries a failing background sync once per time-to-live, logging the error', async () => {
    const s = service();
    const { log } = await start(s, { cacheTtlMs: 50 });
    s.respond = () => problem(500, 'internal');
    await sleep(280);
    expect(s.count('/v1/sync')).toBeLessThanOrEqual(7);
    expect(log.lines.some((l) => l.level === 'error' && /background sync/.test(l.message))).toBe(
      true,
    );
  });

  it('picks up a change without any call', async () => {
    const s = service();
    const { client } = await start(s, { cacheTtlMs: 50 });
    s.snapshot = { ...s.snapshot, revision: 6, flags: { 'checkout.v2': false } };
    await sleep(150);
    expect(client.getFlag('checkout.v2', true)).toBe(false);
  });
});

describe('quarantine', () => {
  it('honours Retry-After: no sync request until it has passed, then syncs again', async () => {
    const s = service();
    const { client, log } = await start(s, { cacheTtlMs: 30 });
    s.respond = (r) =>
      r.path === '/v1/sync' ? problem(429, 'sync_quarantined', { 'retry-after': '1' }) : undefined;
    await sleep(60);
    const error = await client.sync().catch((e) => e);
    expect(error).toBeInstanceOf(ServiceQuarantinedError);
    expect(error.retryAfter).toBe(1);
    const during = s.count('/v1/sync');
    // Refused locally, and no background sync either.
    await expect(client.sync()).rejects.toBeInstanceOf(ServiceQuarantinedError);
    await sleep(700);
    expect(s.count('/v1/sync')).toBe(during);
    expect(client.getFlag('checkout.v2')).toBe(true);
    s.respond = undefined;
    await sleep(500);
    expect(s.count('/v1/sync')).toBeGreaterThan(during);
    await client.sync();
    expect(log.lines.some((l) => l.level === 'info' && /quarantined/.test(l.message))).toBe(true);
  });

  it('reads an HTTP-date Retry-After', async () => {
    const s = service();
    const { client } = await start(s);
    const at = new Date(Date.now() + 3000).toUTCString();
    s.respond = () => problem(429, 'sync_quarantined', { 'retry-after': at });
    const error = await client.sync().catch((e) => e);
    expect(error.retryAfter).toBeGreaterThanOrEqual(2);
    expect(error.retryAfter).toBeLessThanOrEqual(3);
  });
});

describe('onChange()', () => {
  it('reports what a sync changed, and stops after unsubscribe', async () => {
    const s = service();
    const { client } = await start(s);
    const seen: ChangeSet[] = [];
    const off = client.onChange((c) => seen.push(c));
    await client.sync();
    expect(seen).toEqual([]);
    s.snapshot = {
      ...s.snapshot,
      revision: 9,
      configs: {
        'db.pool': { max: 10, hosts: ['a'] },
        'ui.theme': 'light',
        nothing: null,
        added: 1,
      },
      flags: {},
      secrets: { 'stripe.key': { value: 'sk_live_2', type: 'text', version: 2 } },
    };
    await client.sync();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.revision).toBe(9);
    expect(seen[0]!.source).toBe('sync');
    expect(seen[0]!.changes).toEqual(
      expect.arrayContaining([
        { kind: 'config', key: 'ui.theme', op: 'upsert' },
        { kind: 'config', key: 'added', op: 'upsert' },
        { kind: 'flag', key: 'checkout.v2', op: 'delete' },
        { kind: 'secret', key: 'stripe.key', op: 'upsert' },
      ]),
    );
    expect(seen[0]!.changes).toHaveLength(4);
    off();
    s.snapshot = { ...s.snapshot, revision: 10, flags: { x: true } };
    await client.sync();
    expect(seen).toHaveLength(1);
  });

  it('logs a listener that throws and keeps going', async () => {
    const s = service();
    const { client, log } = await start(s);
    const seen: number[] = [];
    client.onChange(() => {
      throw new Error('listener bug');
    });
    client.onChange((c) => seen.push(c.revision));
    s.snapshot = { ...s.snapshot, revision: 6, flags: {} };
    await client.sync();
    expect(seen).toEqual([6]);
    expect(log.lines.find((l) => l.level === 'error')?.message).toMatch(/listener threw/);
  });
});

describe('getConfigAs()', () => {
  it('returns the schema output (with transforms), undefined when absent', async () => {
    const { client } = await start(service());
    const Pool = z
      .object({ max: z.number().int(), hosts: z.array(z.string()) })
      .transform((p) => ({ ...p, size: p.hosts.length }));
    const pool = client.getConfigAs('db.pool', Pool);
    expect(pool).toEqual({ max: 10, hosts: ['a'], size: 1 });
    expect(client.getConfigAs('absent', Pool)).toBeUndefined();
  });

  it('throws a TypeError naming the failing path', async () => {
    const { client } = await start(service());
    const error = (() => {
      try {
        client.getConfigAs('db.pool', z.object({ max: z.string() }));
      } catch (e) {
        return e as TypeError;
      }
    })();
    expect(error).toBeInstanceOf(TypeError);
    expect(error!.message).toMatch(/db\.pool.*max/);
  });

  it('refuses an asynchronous schema', async () => {
    const { client } = await start(service());
    const asyncSchema: StandardSchemaV1<unknown, unknown> = {
      '~standard': { version: 1, vendor: 'test', validate: async (value) => ({ value }) },
    };
    expect(() => client.getConfigAs('ui.theme', asyncSchema)).toThrow(/synchronously/);
  });
});
