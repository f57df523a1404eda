/**
 * A workload identity's key over its life, against the exchange stand-in on a real socket
 * (keys living two seconds): the exchange at `create()`, the refresh at `refreshAt` of the
 * key's life, the stream reconnecting under each new key with `Last-Event-ID` so no change is
 * missed, backoff and `Retry-After` when the exchange fails, and a key that expired before a
 * refresh succeeded not stopping the client.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '@svc/testkit';
import {
  ServiceClient,
  ServiceInitError,
  ServiceUnauthorizedError,
  type ChangeSet,
  type ServiceConfig,
} from '../src/index.ts';
import { ExchangeService, type Verdict } from './support/exchange-service.ts';
import { memoryLogger, sleep } from './support/fake-service.ts';

let service: ExchangeService;
const clients: ServiceClient[] = [];

beforeEach(async () => {
  service = await new ExchangeService().start();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await service.stop();
});

const fastRetry = { initialDelayMs: 100, maxDelayMs: 400 };

async function create(config: Partial<ServiceConfig> = {}, refreshAt = 0.5) {
  const log = memoryLogger();
  const client = await ServiceClient.create({
    baseUrl: service.baseUrl,
    identity: {
      identityId: service.identityId,
      method: 'oidc',
      token: () => 'a-token',
      refreshAt,
      retry: fastRetry,
    },
    logger: log.logger,
    reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
    ...config,
  });
  clients.push(client);
  return { client, log };
}

/** Fails every exchange with `verdict` until the returned function is called. */
function failExchanges(verdict: Verdict): () => void {
  service.verify = () => verdict;
  return () => {
    service.verify = () => ({ ok: true });
  };
}

describe('workload identity: the key over its life', () => {
  it('exchanges at create(), then syncs and streams with the minted key', async () => {
    const { client, log } = await create();
    const [key] = service.minted;
    expect(service.exchanges).toHaveLength(1);
    await waitFor(() => client.isStreamConnected());
    expect(service.keysSeen.map((r) => [r.path, r.apiKey])).toEqual([
      ['/v1/sync', key],
      ['/v1/stream', key],
    ]);
    expect(client.getKeyType()).toBe('sk');
    expect(JSON.stringify(log.lines)).not.toContain(key!.slice(4));
  });

  it('refreshes at refreshAt of the key life and keeps streaming under each new key, missing no change', async () => {
    service.ttlSeconds = 3;
    const { client } = await create({}, 1 / 3);
    const seen: ChangeSet[] = [];
    client.onChange((change) => seen.push(change));
    const started = Date.now();
    // Changes every 40 ms for about three refreshes (one a second with three-second keys).
    let n = 0;
    while (Date.now() - started < 3_300) {
      service.set(`c${++n}`, n);
      await sleep(40);
    }
    await waitFor(() => client.getConfig(`c${n}`) === n, 5_000);

    expect(service.minted.length).toBeGreaterThanOrEqual(3);
    const streamKeys = service.keysSeen.filter((r) => r.path === '/v1/stream');
    expect(new Set(streamKeys.map((r) => r.apiKey)).size).toBeGreaterThanOrEqual(3);
    // Each reconnect resumed after what the cache held: every change arrived by the stream.
    for (const request of streamKeys.slice(1)) expect(request.lastEventId).toMatch(/^\d+$/);
    expect(service.keysSeen.filter((r) => r.path === '/v1/sync')).toHaveLength(1);
    const received = seen.flatMap((set) => set.changes.map((change) => change.key));
    expect(received).toEqual(Array.from({ length: n }, (_, i) => `c${i + 1}`));
    expect(seen.every((set) => set.source === 'stream')).toBe(true);
    // Each refresh came at a third of the key's life (1 s), before it expired: nothing refused.
    const gaps = service.exchangedAt.slice(1).map((at, i) => at - service.exchangedAt[i]!);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(950);
    for (const gap of gaps) expect(gap).toBeLessThan(2_900);
    expect(service.refused).toBe(0);
    expect(client.getStatus().error).toBeNull();
  });

  it('retries a failed refresh with backoff, serving from the cache, and recovers', async () => {
    const { client, log } = await create({}, 0.25);
    service.set('before', 1);
    await waitFor(() => client.getConfig('before') === 1);
    const recover = failExchanges({ ok: false, status: 502, code: 'upstream_unavailable' });
    const failedAt: number[] = [];
    while (failedAt.length < 4) {
      const count = service.exchanges.length;
      await waitFor(() => service.exchanges.length > count, 5_000);
      failedAt.push(Date.now());
    }
    // Doubling delays (100, 200, 400 ms, with jitter: at least half of each).
    const gaps = failedAt.slice(1).map((at, i) => at - failedAt[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(45);
    expect(gaps[1]).toBeGreaterThanOrEqual(95);
    expect(gaps[2]).toBeGreaterThanOrEqual(195);
    expect(client.getConfig('before')).toBe(1);
    expect(log.lines.some((l) => l.message.includes('exchange failed, retrying in'))).toBe(true);

    recover();
    const minted = service.minted.length;
    await waitFor(() => service.minted.length > minted, 5_000);
    service.set('after', 2);
    await waitFor(() => client.getConfig('after') === 2, 5_000);
  });

  it('waits for Retry-After when the exchange answers 429', async () => {
    await create({}, 0.25);
    const recover = failExchanges({ ok: false, status: 429, code: 'rate_limited', retryAfter: 1 });
    const count = service.exchanges.length;
    await waitFor(() => service.exchanges.length > count, 5_000);
    const limitedAt = Date.now();
    recover();
    await waitFor(() => service.exchanges.length > count + 1, 5_000);
    expect(Date.now() - limitedAt).toBeGreaterThanOrEqual(950);
  });

  it('a key that expired before a refresh succeeded: the client keeps trying and catches up', async () => {
    const { client } = await create();
    const recover = failExchanges({
      ok: false,
      status: 401,
      code: 'unauthorized',
      detail: 'expired',
    });
    // The key expires (two seconds); its stream is closed and reconnects are refused.
    await waitFor(() => client.getStatus().error instanceof ServiceUnauthorizedError, 5_000);
    expect(client.isStreamConnected()).toBe(false);
    service.set('during', 'the outage');
    await sleep(300);
    expect(client.getConfig('during')).toBeUndefined();

    recover();
    await waitFor(() => client.getConfig('during') === 'the outage', 5_000);
    await waitFor(() => client.isStreamConnected(), 5_000);
    const last = service.keysSeen.filter((r) => r.path === '/v1/stream').at(-1)!;
    expect(last.apiKey).toBe(service.minted.at(-1));
    expect(client.getStatus().error).toBeNull();
  });

  it('a key the api refuses early (revoked) is exchanged again at once, not at its refresh time', async () => {
    service.ttlSeconds = 60;
    const { client } = await create({}, 2 / 3);
    await waitFor(() => client.isStreamConnected());
    service.revokeAll();
    service.set('after-revoke', true);
    await waitFor(() => client.getConfig('after-revoke') === true, 5_000);
    expect(service.exchanges).toHaveLength(2);
    await waitFor(() => client.isStreamConnected(), 5_000);
  });

  it('without a stream, a refused key is followed by a sync under the new one', async () => {
    const { client } = await create({ stream: false, cacheTtlMs: 60_000 });
    const recover = failExchanges({ ok: false, status: 502, code: 'upstream_unavailable' });
    await sleep(2_100); // the key has expired
    service.set('x', 1);
    await expect(client.sync()).rejects.toBeInstanceOf(ServiceUnauthorizedError);
    recover();
    await waitFor(() => client.getConfig('x') === 1, 5_000);
    expect(service.keysSeen.at(-1)!.apiKey).toBe(service.minted.at(-1));
  });

  it('create() fails with the exchange reason, before any sync', async () => {
    failExchanges({ ok: false, status: 401, code: 'unauthorized', detail: 'audience' });
    const error = await create().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceInitError);
    expect((error as Error).cause).toBeInstanceOf(ServiceUnauthorizedError);
    expect((error as Error).message).toContain(
      'identity exchange: HTTP 401 unauthorized: audience',
    );
    expect(service.keysSeen).toEqual([]);
  });

  it('close() ends the refreshing', async () => {
    const { client } = await create({}, 0.1);
    await client.close();
    const count = service.exchanges.length;
    await sleep(600);
    expect(service.exchanges.length).toBe(count);
  });
});
