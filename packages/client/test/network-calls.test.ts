/** evaluateAB and the secret write API: requests, and answers mapped to the error table. */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ServiceAbAddonNotAvailableError,
  ServiceBillingError,
  ServiceClient,
  ServiceError,
  ServiceNotFoundError,
  ServicePublicKeyError,
  ServiceRateLimitedError,
  ServiceSecretNotFoundError,
  ServiceUnauthorizedError,
  silentLogger,
} from '../src/index.ts';
import { BASE_URL, FakeService, PK, SK, problem } from './support/fake-service.ts';

const clients: ServiceClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

async function start(service: FakeService, apiKey = SK) {
  if (apiKey === PK) {
    service.snapshot = { ...service.snapshot, key_type: 'pk' };
    delete service.snapshot.secrets;
  }
  const client = await ServiceClient.create({
    baseUrl: BASE_URL,
    apiKey,
    stream: false,
    fetch: service.fetch,
    logger: silentLogger,
  });
  clients.push(client);
  return client;
}

describe('evaluateAB()', () => {
  it('posts flags, user_id and attributes and returns the results map unchanged', async () => {
    const s = new FakeService();
    const client = await start(s);
    s.respond = (r) =>
      r.path === '/v1/flags/evaluate-ab'
        ? Response.json({ results: { a: true, b: false } })
        : undefined;
    const results = await client.evaluateAB(['a', 'b'], 'u-1', { country: 'DE', seats: 3 });
    expect(results).toEqual({ a: true, b: false });
    const request = s.requests.at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body!)).toEqual({
      flags: ['a', 'b'],
      user_id: 'u-1',
      attributes: { country: 'DE', seats: 3 },
    });
    // Always the network: a second call is a second request.
    await client.evaluateAB(['a'], 'u-1');
    expect(s.count('/v1/flags/evaluate-ab')).toBe(2);
    expect(JSON.parse(s.requests.at(-1)!.body!).attributes).toEqual({});
  });

  it.each([
    [401, 'unauthorized', ServiceUnauthorizedError],
    [402, 'billing_overdue', ServiceBillingError],
    [403, 'ab_addon_inactive', ServiceAbAddonNotAvailableError],
    [404, 'not_found', ServiceNotFoundError],
    [400, 'invalid_request', ServiceError],
    [503, 'internal', ServiceError],
  ])('HTTP %i %s', async (status, code, type) => {
    const s = new FakeService();
    const client = await start(s);
    s.respond = () => problem(status, code);
    const error = await client.evaluateAB(['a'], 'u').catch((e) => e);
    expect(error.constructor).toBe(type);
    expect(error).toMatchObject({ status, code });
  });

  it('a body that is not the contract is a ServiceError', async () => {
    const s = new FakeService();
    const client = await start(s);
    for (const body of ['nope', '{"results": {"a": "yes"}}', '{}']) {
      s.respond = () => new Response(body, { headers: { 'content-type': 'application/json' } });
      const error = await client.evaluateAB(['a'], 'u').catch((e) => e);
      expect(error.constructor).toBe(ServiceError);
    }
  });

  it('checks its argument types locally', async () => {
    const client = await start(new FakeService());
    await expect(client.evaluateAB('a' as never, 'u')).rejects.toBeInstanceOf(TypeError);
    await expect(client.evaluateAB(['a'], 1 as never)).rejects.toBeInstanceOf(TypeError);
    await expect(client.evaluateAB(['a'], 'u', [] as never)).rejects.toBeInstanceOf(TypeError);
  });
});

describe('secret writes', () => {
  it('PUT /v1/secrets/{key} with the value (and expected_version), path-encoded', async () => {
    const s = new FakeService();
    const client = await start(s);
    s.respond = (r) =>
      r.method === 'PUT'
        ? Response.json(
            { key: 'a.b', version: 4, type: 'text' },
            { status: r.body?.includes('expected') ? 200 : 201 },
          )
        : undefined;
    expect(await client.setSecret('a.b', 'v')).toEqual({ key: 'a.b', version: 4, created: true });
    expect(s.requests.at(-1)).toMatchObject({ method: 'PUT', path: '/v1/secrets/a.b' });
    expect(JSON.parse(s.requests.at(-1)!.body!)).toEqual({ value: 'v' });
    expect(await client.setSecret('a b/c', 'v', { expectedVersion: 0 })).toMatchObject({
      created: false,
    });
    expect(s.requests.at(-1)!.path).toBe('/v1/secrets/a%20b%2Fc');
    expect(JSON.parse(s.requests.at(-1)!.body!)).toEqual({ value: 'v', expected_version: 0 });
  });

  it('DELETE the secret and one version', async () => {
    const s = new FakeService();
    const client = await start(s);
    s.respond = (r) => (r.method === 'DELETE' ? new Response(null, { status: 204 }) : undefined);
    await client.deleteSecret('a.b');
    await client.deleteSecretVersion('a.b', 3);
    expect(s.requests.slice(-2).map((r) => `${r.method} ${r.path}`)).toEqual([
      'DELETE /v1/secrets/a.b',
      'DELETE /v1/secrets/a.b/versions/3',
    ]);
  });

  it.each([
    [401, 'unauthorized', ServiceUnauthorizedError],
    [402, 'billing_overdue', ServiceBillingError],
    [403, 'public_key_forbidden', ServicePublicKeyError],
    [404, 'secret_not_found', ServiceNotFoundError],
    [404, 'version_not_found', ServiceNotFoundError],
    [409, 'version_conflict', ServiceError],
    [413, 'payload_too_large', ServiceError],
  ])('HTTP %i %s', async (status, code, type) => {
    const s = new FakeService();
    const client = await start(s);
    s.respond = (r) => (r.path.startsWith('/v1/secrets') ? problem(status, code) : undefined);
    for (const call of [
      () => client.setSecret('a', 'v'),
      () => client.deleteSecret('a'),
      () => client.deleteSecretVersion('a', 1),
    ]) {
      const error = await call().catch((e) => e);
      expect(error.constructor).toBe(type);
      expect(error.code).toBe(code);
    }
  });

  it('429: ServiceRateLimitedError with retryAfter', async () => {
    const s = new FakeService();
    const client = await start(s);
    s.respond = (r) =>
      r.method === 'PUT' ? problem(429, 'rate_limited', { 'retry-after': '8' }) : undefined;
    const error = await client.setSecret('a', 'v').catch((e) => e);
    expect(error).toBeInstanceOf(ServiceRateLimitedError);
    expect(error.retryAfter).toBe(8);
  });

  it('a public key: ServicePublicKeyError before any request', async () => {
    const s = new FakeService();
    const client = await start(s, PK);
    const before = s.requests.length;
    await expect(client.setSecret('a', 'v')).rejects.toBeInstanceOf(ServicePublicKeyError);
    await expect(client.deleteSecret('a')).rejects.toBeInstanceOf(ServicePublicKeyError);
    await expect(client.deleteSecretVersion('a', 1)).rejects.toBeInstanceOf(ServicePublicKeyError);
    expect(() => client.getSecret('a')).toThrow(ServicePublicKeyError);
    expect(() => client.getAllSecrets()).toThrow(ServicePublicKeyError);
    expect(client.getSecretFilePath('a')).toBeUndefined();
    expect(s.requests.length).toBe(before);
  });

  it('getSecret of an absent key: ServiceSecretNotFoundError naming the key', async () => {
    const client = await start(new FakeService());
    const error = (() => {
      try {
        client.getSecret('vendor.token');
      } catch (e) {
        return e as ServiceSecretNotFoundError;
      }
    })();
    expect(error).toBeInstanceOf(ServiceSecretNotFoundError);
    expect(error!.key).toBe('vendor.token');
  });

  it('checks its argument types locally', async () => {
    const client = await start(new FakeService());
    await expect(client.setSecret('', 'v')).rejects.toBeInstanceOf(TypeError);
    await expect(client.setSecret('a', 5 as never)).rejects.toBeInstanceOf(TypeError);
    await expect(client.setSecret('a', 'v', { expectedVersion: -1 })).rejects.toBeInstanceOf(
      TypeError,
    );
    await expect(client.deleteSecretVersion('a', 0)).rejects.toBeInstanceOf(TypeError);
    await expect(client.deleteSecretVersion('a', 1.5)).rejects.toBeInstanceOf(TypeError);
  });
});

describe('errors', () => {
  it('every client error is a ServiceError with its own name', async () => {
    const s = new FakeService();
    const client = await start(s);
    s.respond = () => problem(402, 'billing_overdue');
    const error = await client.evaluateAB(['a'], 'u').catch((e) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ServiceBillingError');
    expect(error.message).toMatch(/402 billing_overdue/);
  });
});
