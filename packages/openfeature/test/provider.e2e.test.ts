/**
 * The provider under the OpenFeature server SDK, against the real console and api as processes:
 * each provider requirement it claims (OpenFeature spec, providers and events), checked end to
 * end. There is no provider test kit for JavaScript to run instead.
 */
import { OpenFeature, ProviderEvents, type Client } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcesses, waitFor, type ProcessServer } from '@svc/testkit';
import { silentLogger } from '@svc/client';
import { SvcProvider } from '../src/index.ts';

const TOKEN = 'openfeature-provider-test-token-0123456789';
const P = '/workspaces/of/projects/web';
const FLAGS = ['pro.only', 'half', 'de.blocked', 'everyone', 'switched.off'];
let live: ProcessServer;
let sk: string;
let skId: string;
let baseUrl: string;

/** Counts the client's requests by path. */
function countingFetch() {
  const counts = new Map<string, number>();
  const fetch: typeof globalThis.fetch = (input, init) => {
    const path = new URL(String(input)).pathname.replace(/^\/of/, '');
    counts.set(path, (counts.get(path) ?? 0) + 1);
    return globalThis.fetch(input, init);
  };
  return { fetch, count: (path: string) => counts.get(path) ?? 0 };
}

/** A provider in a domain of its own, with its events recorded. */
async function provider(name: string, options: Record<string, unknown> = {}) {
  const requests = countingFetch();
  const events: Array<{ type: string; flagsChanged?: string[]; at: number }> = [];
  const p = new SvcProvider({
    baseUrl,
    apiKey: sk,
    fetch: requests.fetch,
    logger: silentLogger,
    ...options,
  } as never);
  const client = OpenFeature.getClient(name);
  for (const type of [
    ProviderEvents.Ready,
    ProviderEvents.Error,
    ProviderEvents.Stale,
    ProviderEvents.ConfigurationChanged,
  ]) {
    client.addHandler(type, (details) =>
      events.push({
        type,
        flagsChanged: details?.flagsChanged as string[] | undefined,
        at: Date.now(),
      }),
    );
  }
  await OpenFeature.setProviderAndWait(name, p).catch(() => {});
  return { provider: p, client, requests, events };
}

beforeAll(async () => {
  live = await startProcesses(TOKEN);
  baseUrl = `${live.apiUrl}/of`;
  await live.admin('POST', '/workspaces', { slug: 'of', name: 'OF' });
  await live.admin('POST', '/workspaces/of/projects', { slug: 'web', name: 'Web' });
  await live.admin('PATCH', P, { ab_testing: true });
  const rule = (attribute: string, value: string, result: boolean) => ({
    conditions: [{ attribute, operator: 'eq', values: [value] }],
    result,
  });
  await live.admin('PUT', `${P}/flags/pro.only`, {
    is_active: true,
    rollout_percentage: 0,
    rules: [rule('plan', 'pro', true)],
  });
  await live.admin('PUT', `${P}/flags/half`, { is_active: true, rollout_percentage: 50 });
  await live.admin('PUT', `${P}/flags/de.blocked`, {
    is_active: true,
    rollout_percentage: 40,
    rules: [rule('country', 'DE', false)],
  });
  await live.admin('PUT', `${P}/flags/everyone`, { is_active: true });
  await live.admin('PUT', `${P}/flags/switched.off`, { is_active: false });
  await live.admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
  await live.admin('PUT', `${P}/configs/limits.rps`, { value: 40, is_public: true });
  await live.admin('PUT', `${P}/configs/db.pool`, { value: { max: 10 }, is_public: false });
  await live.admin('PUT', `${P}/configs/beta.banner`, { value: true, is_public: true });
  const created = (await live.admin('POST', `${P}/keys`, { kind: 'secret' })).json();
  sk = created.key;
  skId = created.id;
  await waitFor(async () => {
    const res = await fetch(`${baseUrl}/v1/sync`, { headers: { 'x-service-api-key': sk } });
    await res.arrayBuffer();
    return res.status === 200;
  }, 10_000);
}, 60_000);

afterAll(async () => {
  await OpenFeature.close();
  await live?.stop();
});

describe('SvcProvider', () => {
  let client: Client;
  let requests: ReturnType<typeof countingFetch>;

  beforeAll(async () => {
    ({ client, requests } = await provider('reads'));
  });

  it('names itself and is READY once its client has synced', () => {
    expect(client.metadata.providerMetadata.name).toBe('svc');
    expect(client.providerStatus).toBe('READY');
  });

  it('answers flags and configs from the cache: no request without a targeting key', async () => {
    const syncs = requests.count('/v1/sync');
    expect(await client.getBooleanDetails('everyone', false)).toMatchObject({
      value: true,
      reason: 'STATIC',
      variant: 'on',
    });
    expect(await client.getBooleanDetails('pro.only', false, { plan: 'free' })).toMatchObject({
      value: true,
      reason: 'STATIC',
    });
    expect(await client.getBooleanDetails('switched.off', true)).toMatchObject({
      value: false,
      reason: 'DISABLED',
      variant: 'off',
    });
    expect(await client.getStringDetails('ui.theme', 'x')).toMatchObject({
      value: 'dark',
      reason: 'STATIC',
    });
    expect((await client.getNumberDetails('limits.rps', 1)).value).toBe(40);
    expect((await client.getObjectDetails('db.pool', {})).value).toEqual({ max: 10 });
    expect((await client.getBooleanDetails('beta.banner', false)).value).toBe(true);
    expect(requests.count('/v1/sync')).toBe(syncs);
    expect(requests.count('/v1/flags/evaluate-ab')).toBe(0);
  });

  it('answers the default with FLAG_NOT_FOUND or TYPE_MISMATCH', async () => {
    expect(await client.getBooleanDetails('no.such', true)).toMatchObject({
      value: true,
      reason: 'ERROR',
      errorCode: 'FLAG_NOT_FOUND',
    });
    expect(await client.getNumberDetails('ui.theme', 3)).toMatchObject({
      value: 3,
      errorCode: 'TYPE_MISMATCH',
    });
    expect(await client.getStringDetails('everyone', 'd')).toMatchObject({
      value: 'd',
      errorCode: 'TYPE_MISMATCH',
    });
    expect((await client.getObjectDetails('limits.rps', { a: 1 })).errorCode).toBe('TYPE_MISMATCH');
  });

  it('evaluates with evaluate-ab for a targeting key: 20 pairs as the api answers', async () => {
    const before = requests.count('/v1/flags/evaluate-ab');
    const answers = new Set<boolean>();
    for (let u = 0; u < 4; u++) {
      const user = `user-${u * 7919 + 13}`;
      const attributes = { plan: u % 2 === 0 ? 'pro' : 'free', country: u % 3 === 0 ? 'DE' : 'FR' };
      const ab = await fetch(`${baseUrl}/v1/flags/evaluate-ab`, {
        method: 'POST',
        headers: { 'x-service-api-key': sk, 'content-type': 'application/json' },
        body: JSON.stringify({ flags: FLAGS, user_id: user, attributes }),
      }).then((r) => r.json() as Promise<{ results: Record<string, boolean> }>);
      // All five flags of one user at once: one request for the active ones.
      const details = await Promise.all(
        FLAGS.map((flag) =>
          client.getBooleanDetails(flag, false, { targetingKey: user, ...attributes }),
        ),
      );
      details.forEach((d, i) => {
        expect(d.value, `${user} ${FLAGS[i]}`).toBe(ab.results[FLAGS[i]!]);
        expect(d.reason).toBe(FLAGS[i] === 'switched.off' ? 'DISABLED' : 'TARGETING_MATCH');
        answers.add(d.value);
      });
    }
    expect([...answers].sort()).toEqual([false, true]);
    expect(requests.count('/v1/flags/evaluate-ab') - before).toBe(4);
  });

  it('emits PROVIDER_CONFIGURATION_CHANGED with the changed keys when the stream brings a change', async () => {
    const { client: c, events } = await provider('events');
    await waitFor(() => (c as unknown as { providerStatus: string }).providerStatus === 'READY');
    const start = Date.now();
    await live.admin('PUT', `${P}/configs/ui.theme`, { value: 'light', is_public: true });
    await waitFor(() => events.some((e) => e.type === ProviderEvents.ConfigurationChanged), 5000);
    const changed = events.find((e) => e.type === ProviderEvents.ConfigurationChanged)!;
    expect(changed.flagsChanged).toEqual(['ui.theme']);
    expect(changed.at - start).toBeLessThan(2000);
    expect((await c.getStringDetails('ui.theme', 'x')).value).toBe('light');
  });

  it('evaluates statically while the AB add-on is off, without asking again for a while', async () => {
    const { client: c, requests: r } = await provider('addon-off');
    await live.admin('PATCH', P, { ab_testing: false });
    await waitFor(async () => {
      const res = await fetch(`${baseUrl}/v1/flags/evaluate-ab`, {
        method: 'POST',
        headers: { 'x-service-api-key': sk, 'content-type': 'application/json' },
        body: JSON.stringify({ flags: ['half'], user_id: 'u' }),
      });
      await res.arrayBuffer();
      return res.status === 403;
    });
    for (let i = 0; i < 5; i++) {
      expect(
        await c.getBooleanDetails('pro.only', false, { targetingKey: 'u', plan: 'free' }),
      ).toMatchObject({
        value: true,
        reason: 'STATIC',
      });
    }
    expect(r.count('/v1/flags/evaluate-ab')).toBe(1);
    await live.admin('PATCH', P, { ab_testing: true });
  });

  it('is in error with a bad key: initialization fails, evaluations answer the default', async () => {
    const bad = 'svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN';
    const { client: c, events } = await provider('bad-key', { apiKey: bad });
    expect(c.providerStatus).toBe('FATAL');
    expect(events.some((e) => e.type === ProviderEvents.Error)).toBe(true);
    expect(await c.getBooleanDetails('everyone', false)).toMatchObject({
      value: false,
      errorCode: 'PROVIDER_FATAL',
    });
  });

  it('is STALE while the api is down, READY again once it is back', async () => {
    const { client: c, events } = await provider('outage', {
      reconnect: { initialMs: 100, maxMs: 200 },
    });
    await live.killApi();
    await waitFor(() => c.providerStatus === 'STALE', 10_000);
    // Reads go on from the cache.
    expect((await c.getBooleanDetails('everyone', false)).value).toBe(true);
    await live.startApi();
    await waitFor(() => c.providerStatus === 'READY', 20_000);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining([ProviderEvents.Stale, ProviderEvents.Ready]),
    );
  }, 60_000);

  it('is in ERROR once its key is revoked', async () => {
    const { client: c } = await provider('revoked');
    await live.admin('DELETE', `${P}/keys/${skId}`);
    await waitFor(() => c.providerStatus === 'ERROR', 10_000);
  });
});
