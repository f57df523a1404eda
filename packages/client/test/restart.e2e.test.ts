/**
 * The api as a real process, killed and started again: the client keeps serving its cache while
 * the api is gone, reconnects by itself, and converges on what changed meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@svc/testkit';
import { ServiceClient, type ServiceLogger } from '../src/index.ts';
import { startProcesses, type ProcessServer } from './support/server.ts';

let server: ProcessServer;
let sk: string;
const P = '/workspaces/acme/projects/web';
const errors: string[] = [];
const logger: ServiceLogger = { debug() {}, info() {}, error: (m) => errors.push(m) };

beforeAll(async () => {
  // During a SIGTERM shutdown the api keeps serving requests on open keep-alive connections,
  // and a reconnecting client keeps its connection busy (503s, syncs): the api then exits only
  // at the end of its grace period (10 s by default). One second keeps this test short.
  server = await startProcesses({ SHUTDOWN_GRACE_MS: '1000' });
  await server.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await server.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  await server.admin('PUT', `${P}/flags/checkout.v2`, { is_active: false });
  await server.admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
  await server.admin('PUT', `${P}/secrets/tls.cert`, {
    value: 'PEM-1',
    type: 'file',
    file_name: 'tls.pem',
  });
  sk = (await server.admin('POST', `${P}/keys`, { kind: 'secret' })).json().key;
  await waitFor(async () => {
    const res = await fetch(`${server.apiUrl}/acme/v1/sync`, {
      headers: { 'x-service-api-key': sk },
    });
    await res.arrayBuffer();
    return res.status === 200;
  }, 10_000);
}, 60_000);

afterAll(() => server?.stop(), 30_000);

describe.each([
  ['SIGKILL', true],
  ['SIGTERM', false],
])('the api killed (%s) and restarted', (_, hard) => {
  it('the client serves its cache meanwhile, reconnects, and converges', async () => {
    await using client = await ServiceClient.create({
      baseUrl: `${server.apiUrl}/acme`,
      apiKey: sk,
      logger,
      cacheTtlMs: 300,
      reconnect: { initialDelayMs: 100, maxDelayMs: 400 },
    });
    await waitFor(() => client.isStreamConnected(), 5000);
    const flag = client.getFlag('checkout.v2');
    const file = client.getSecretFilePath('tls.cert');

    await server.killApi(hard);
    await waitFor(() => !client.isStreamConnected(), 5000);
    // Changes while the api is down (the console still writes to the database).
    await server.admin('PUT', `${P}/flags/checkout.v2`, { is_active: !flag });
    await server.admin('PUT', `${P}/configs/ui.theme`, { value: `theme-${hard}`, is_public: true });
    await server.admin('PUT', `${P}/secrets/tls.cert`, {
      value: `PEM-${hard}`,
      type: 'file',
      file_name: 'tls.pem',
    });
    // Reads keep answering from the cache; a sync fails without touching it.
    await new Promise((r) => setTimeout(r, 400));
    expect(client.getFlag('checkout.v2')).toBe(flag);
    await expect(client.sync()).rejects.toThrow();
    expect(client.getSecretFilePath('tls.cert')).toBe(file);

    await server.startApi();
    await waitFor(() => client.isStreamConnected(), 10_000);
    await waitFor(() => client.getFlag('checkout.v2') === !flag, 5000);
    expect(client.getConfig('ui.theme')).toBe(`theme-${hard}`);
    expect(client.getSecret('tls.cert')).toBe(`PEM-${hard}`);

    // And the stream works again: a new change arrives without a sync.
    await server.admin('PUT', `${P}/flags/checkout.v2`, { is_active: flag });
    await waitFor(() => client.getFlag('checkout.v2') === flag, 2000);
  }, 60_000);
});
