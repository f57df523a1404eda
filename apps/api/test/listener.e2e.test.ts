/**
 * The api listener's own answers: routes from the one /v1 table, the caller authenticated
 * before any body is read, 405 for a known path with another method, 400 for a malformed path.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Digest, sha256KeyHasher } from '@svc/crypto';
import { ReadModel, SecretWrites } from '@svc/domain';
import { createApiServer, Metrics } from '@svc/http';
import { createLogger, createSealer, openStorage } from '@svc/runtime';
import { StreamHub } from '@svc/sse';
import { answerBeforeBody } from '@svc/testkit';
import { httpCall, startHarness, type Harness } from './harness.ts';

let h: Harness;
let sk: string;
let pk: string;

beforeAll(async () => {
  h = await startHarness();
  await h.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await h.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  await h.admin('PATCH', '/workspaces/acme/projects/web', { ab_testing: true });
  sk = await h.createKey('web', 'secret');
  pk = await h.createKey('web', 'public');
  await h.syncUntil(pk, () => true);
}, 30_000);

afterAll(() => h?.stop());

const call = (method: string, path: string, options: Parameters<typeof httpCall>[3] = {}) =>
  httpCall(h.api.port, method, `/acme${path}`, options);

describe('api listener', () => {
  it('answers 405 with Allow for a known path asked with another method', async () => {
    const res = await call('POST', '/v1/sync', { headers: { 'x-service-api-key': sk } });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET');
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.json()).toMatchObject({ status: 405, code: 'method_not_allowed' });
    const secret = await call('GET', '/v1/secrets/x', { headers: { 'x-service-api-key': sk } });
    expect(secret.status).toBe(405);
    expect(secret.headers.allow).toBe('PUT, DELETE');
  });

  it('answers 404 for an unknown path, with or without a key', async () => {
    expect((await call('GET', '/v1/nothing')).status).toBe(404);
    expect(
      (await call('GET', '/v1/sync/extra', { headers: { 'x-service-api-key': sk } })).status,
    ).toBe(404);
  });

  it('answers 400 naming the parameter for bad percent-encoding in a path, never 500', async () => {
    for (const path of ['/v1/secrets/%ZZ', '/v1/secrets/a%E0%A4%A', '/v1/secrets/x/versions/%']) {
      const res = await call('DELETE', path, { headers: { 'x-service-api-key': sk } });
      expect(res.status, path).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_request' });
    }
    const res = await call('DELETE', '/v1/secrets/%ZZ');
    expect(res.json().field).toBe('key');
  });

  it('authenticates before it reads a body: 401 without a key, 403 for a public key on writes', async () => {
    // Malformed JSON and oversized bodies: the key decides first.
    const noKey = await call('PUT', '/v1/secrets/a', { rawBody: '{not json' });
    expect(noKey.status).toBe(401);
    const big = await call('PUT', '/v1/secrets/a', { rawBody: 'x'.repeat(1100 * 1024) });
    expect(big.status).toBe(401);
    const publicKey = await call('PUT', '/v1/secrets/a', {
      headers: { 'x-service-api-key': pk },
      rawBody: '{not json',
    });
    expect(publicKey.status).toBe(403);
    const evaluate = await call('POST', '/v1/flags/evaluate-ab', { rawBody: '{not json' });
    expect(evaluate.status).toBe(401);
  });

  it('answers refusals while the body is still on its way', async () => {
    const length = 512 * 1024;
    expect(await answerBeforeBody(h.api.port, 'PUT', '/acme/v1/secrets/a', {}, length)).toMatch(
      / 401 /,
    );
    expect(
      await answerBeforeBody(
        h.api.port,
        'PUT',
        '/acme/v1/secrets/a',
        { 'X-Service-API-Key': pk },
        length,
      ),
    ).toMatch(/ 403 /);
    expect(
      await answerBeforeBody(h.api.port, 'POST', '/acme/v1/flags/evaluate-ab', {}, 1000),
    ).toMatch(/ 401 /);
  });

  it('answers 402 and 403 before reading an evaluate-ab body', async () => {
    await h.admin('PATCH', '/workspaces/acme/projects/web', { ab_testing: false });
    const until = Date.now() + 2000;
    let res = await call('POST', '/v1/flags/evaluate-ab', {
      headers: { 'x-service-api-key': sk },
      rawBody: '{not json',
    });
    while (res.status !== 403 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 10));
      res = await call('POST', '/v1/flags/evaluate-ab', {
        headers: { 'x-service-api-key': sk },
        rawBody: '{not json',
      });
    }
    expect(res.json()).toMatchObject({ status: 403, code: 'ab_addon_inactive' });
    await h.admin('PATCH', '/workspaces/acme/projects/web', { ab_testing: true });
  });

  it('counts every routed request under its route template, secret writes included', async () => {
    const before = await metricValue('/v1/secrets/{key}', 201);
    await call('PUT', '/v1/secrets/counted.one', {
      headers: { 'x-service-api-key': sk },
      body: { value: 'v' },
    });
    await call('PUT', '/v1/secrets/counted.two', {
      headers: { 'x-service-api-key': sk },
      body: { value: 'v' },
    });
    expect(await metricValue('/v1/secrets/{key}', 201)).toBe(before + 2);
  });
});

async function metricValue(route: string, status: number): Promise<number> {
  const text = (await httpCall(h.api.metricsPort!, 'GET', '/metrics')).text;
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`svc_http_requests_total{route="${route}",status="${status}"} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('authentication once', () => {
  it('authenticates each request once: the key-usage hook fires once per request', async () => {
    // A second listener over the same database, with a model whose hook counts.
    const storage = await openStorage(h.settings);
    const { sealer } = createSealer(h.settings);
    const used: string[] = [];
    const model = new ReadModel({
      store: storage.store,
      sealer,
      hasher: sha256KeyHasher,
      digest: sha256Digest,
      onKeyUsed: (id) => used.push(id),
    });
    await model.load();
    const hub = new StreamHub({ maxAgeMs: 60_000 });
    const server = createApiServer({
      model,
      hub,
      writes: new SecretWrites({
        store: storage.store,
        // No change feed follows this model: a write need not wait for it to apply.
        model,
        applyTimeoutMs: 0,
        sealer,
        limiter: storage.writeRateLimiter({ max: 100, windowSeconds: 10 }),
      }),
      clientAddress: () => '127.0.0.1',
      baseDomain: 'localhost',
      logger: createLogger({ name: 'test', level: 'silent' }),
      metrics: new Metrics(),
      ready: () => true,
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    try {
      const headers = { 'x-service-api-key': sk };
      const answers = [
        await httpCall(port, 'GET', '/acme/v1/sync', { headers }),
        await httpCall(port, 'POST', '/acme/v1/flags/evaluate-ab', {
          headers,
          body: { flags: ['a'], user_id: 'u' },
        }),
        await httpCall(port, 'PUT', '/acme/v1/secrets/once', { headers, body: { value: 'v' } }),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 200, 201]);
      expect(used).toHaveLength(3);
    } finally {
      server.close();
      await hub.close(100);
      await storage.store.close();
    }
  });
});
