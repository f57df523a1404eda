/** Construction: every bad setting is a TypeError before any request. */
import { describe, expect, it, vi } from 'vitest';
import { ServiceClient, ServiceInitError, ServiceError } from '../src/index.ts';
import { keyTypeOf } from '../src/api-key.ts';
import { resolveConfig } from '../src/config.ts';
import { BASE_URL, FakeService, PK, SK, problem } from './support/fake-service.ts';
import { silentLogger } from '../src/logger.ts';

describe('API key format', () => {
  it('accepts the contract examples and derives the key type', () => {
    expect(keyTypeOf(SK)).toBe('sk');
    expect(keyTypeOf(PK)).toBe('pk');
  });

  it.each([
    ['wrong checksum', 'svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvM'],
    ['wrong prefix', 'svx_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN'],
    ['public prefix on a secret body', 'svp_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN'],
    ['too short', 'svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHv'],
    ['too long', 'svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvNN'],
    ['not base62', 'svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elH-N'],
    ['empty', ''],
  ])('rejects %s', (_, key) => {
    expect(keyTypeOf(key)).toBeUndefined();
  });
});

describe('ServiceClient.create() settings', () => {
  const bad: [string, unknown][] = [
    ['no config', undefined],
    ['no baseUrl', { apiKey: SK }],
    ['empty baseUrl', { baseUrl: ' ', apiKey: SK }],
    ['baseUrl not a URL', { baseUrl: 'acme', apiKey: SK }],
    ['baseUrl not http', { baseUrl: 'ftp://x/acme', apiKey: SK }],
    ['baseUrl with a query', { baseUrl: 'http://x/acme?a=1', apiKey: SK }],
    ['baseUrl with credentials', { baseUrl: 'http://u:p@x/acme', apiKey: SK }],
    ['no apiKey', { baseUrl: BASE_URL }],
    ['apiKey not a string', { baseUrl: BASE_URL, apiKey: 42 }],
    ['apiKey with a wrong checksum', { baseUrl: BASE_URL, apiKey: SK.slice(0, -1) + 'M' }],
    ['negative cacheTtlMs', { baseUrl: BASE_URL, apiKey: SK, cacheTtlMs: -1 }],
    ['NaN requestTimeoutMs', { baseUrl: BASE_URL, apiKey: SK, requestTimeoutMs: NaN }],
    ['zero reconnect delay', { baseUrl: BASE_URL, apiKey: SK, reconnect: { initialDelayMs: 0 } }],
    ['stream not boolean', { baseUrl: BASE_URL, apiKey: SK, stream: 'yes' }],
    ['logger without error', { baseUrl: BASE_URL, apiKey: SK, logger: { debug() {}, info() {} } }],
  ];

  it.each(bad)('%s: TypeError, no request', async (_, config) => {
    const fetch = vi.fn();
    const withFetch = typeof config === 'object' && config !== null ? { ...config, fetch } : config;
    await expect(ServiceClient.create(withFetch as never)).rejects.toBeInstanceOf(TypeError);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('never puts the key in its messages', async () => {
    const wrong = SK.slice(0, -1) + 'M';
    const error = await ServiceClient.create({ baseUrl: BASE_URL, apiKey: wrong }).catch((e) => e);
    expect(error.message).not.toContain(wrong);
  });

  it('normalizes the base URL and trims the key', () => {
    const config = resolveConfig({ baseUrl: ' http://host:8080/acme/ ', apiKey: ` ${SK}\n` });
    expect(config.baseUrl).toBe('http://host:8080/acme');
    expect(config.apiKey).toBe(SK);
    expect(config.keyType).toBe('sk');
    expect(resolveConfig({ baseUrl: 'https://acme.example.com', apiKey: PK }).baseUrl).toBe(
      'https://acme.example.com',
    );
  });

  it('fills in the defaults of the contract', () => {
    const config = resolveConfig({ baseUrl: BASE_URL, apiKey: SK });
    expect(config).toMatchObject({
      stream: true,
      cacheTtlMs: 60_000,
      requestTimeoutMs: 10_000,
      reconnect: {
        initialDelayMs: 1000,
        maxDelayMs: 30_000,
        resetAfterMs: 60_000,
        silenceTimeoutMs: 45_000,
      },
    });
  });
});

describe('ServiceClient.create() initial sync', () => {
  const create = (service: FakeService) =>
    ServiceClient.create({
      baseUrl: BASE_URL,
      apiKey: SK,
      stream: false,
      fetch: service.fetch,
      logger: silentLogger,
    });

  it.each([
    [401, 'unauthorized', 'ServiceUnauthorizedError'],
    [404, 'not_found', 'ServiceNotFoundError'],
    [429, 'sync_quarantined', 'ServiceQuarantinedError'],
    [500, 'internal', 'ServiceError'],
  ])('HTTP %i: ServiceInitError caused by %s', async (status, code, name) => {
    const service = new FakeService();
    service.respond = () => problem(status, code, { 'retry-after': '7' });
    const error = await create(service).catch((e) => e);
    expect(error).toBeInstanceOf(ServiceInitError);
    expect(error.cause.constructor.name).toBe(name);
    expect(error.cause.status).toBe(status);
    if (status === 429) expect(error.cause.retryAfter).toBe(7);
  });

  it('a network failure or a body that is not a snapshot: ServiceInitError caused by ServiceError', async () => {
    for (const respond of [
      () => {
        throw new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') });
      },
      () => new Response('not json', { headers: { 'content-type': 'application/json' } }),
      () => Response.json({ revision: 'x', configs: {}, flags: {} }),
      () => Response.json({ revision: 1, configs: {}, flags: { a: 'yes' } }),
    ]) {
      const service = new FakeService();
      service.respond = respond;
      const error = await create(service).catch((e) => e);
      expect(error).toBeInstanceOf(ServiceInitError);
      expect(error.cause.constructor).toBe(ServiceError);
    }
  });

  it('times out a sync that never answers', async () => {
    const service = new FakeService();
    const error = await ServiceClient.create({
      baseUrl: BASE_URL,
      apiKey: SK,
      stream: false,
      requestTimeoutMs: 50,
      logger: silentLogger,
      fetch: (_url, init) =>
        new Promise((_, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)),
        ),
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ServiceInitError);
    expect(error.cause.message).toMatch(/timed out after 50 ms/);
    expect(service.requests).toHaveLength(0);
  });
});
