/**
 * An api restarted under connected clients (raw SSE streams reconnecting with Last-Event-ID, as
 * the client libraries do): each one converges on what changed while it was away, by a replay
 * of the missed changes where the new process's history holds them, else by `resync` and a sync.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStream, type SseEvent, type SseReader } from '@svc/sse/testing';
import { adminCalls, httpCall, waitFor } from '@svc/testkit';
import { startAppProcess, type AppProcess } from '@svc/testkit/app-process';

const TOKEN = 'test-admin-token-restart-0123456789';
const P = '/workspaces/acme/projects/web';
/** Clients per key kind. */
const CLIENTS = 10;

let consoleApp: AppProcess;
let api: AppProcess;
const keys = { sk: '', pk: '' };

beforeAll(async () => {
  const env = {
    SERVICE_ROOT_KEY: randomBytes(32).toString('base64'),
    CONSOLE_ADMIN_TOKEN: TOKEN,
    // These clients sync far more often than real ones: no quarantine.
    SYNC_QUARANTINE_MAX: '1000000',
    // A SIGTERM ends the streams cleanly, then waits for no one.
    SHUTDOWN_GRACE_MS: '2000',
  };
  consoleApp = await startAppProcess('console', env);
  api = await startAppProcess('api', env, { dataDir: consoleApp.dataDir });
  await admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  keys.sk = (await admin('POST', `${P}/keys`, { kind: 'secret' })).json().key;
  keys.pk = (await admin('POST', `${P}/keys`, { kind: 'public' })).json().key;
  await waitFor(async () => (await sync('pk')).status === 200, 10_000);
}, 60_000);

afterAll(async () => {
  await api?.remove();
  await consoleApp?.remove();
});

const { admin } = adminCalls(() => consoleApp.port, TOKEN);
const sync = (kind: 'sk' | 'pk') =>
  httpCall(api.port, 'GET', '/acme/v1/sync', { headers: { 'x-service-api-key': keys[kind] } });
const putConfig = (key: string, value: string) =>
  admin('PUT', `${P}/configs/${key}`, { value, is_public: true });

/** A client: what it knows (configs by key, at a revision) and its open stream. */
interface Client {
  kind: 'sk' | 'pk';
  revision: number;
  configs: Map<string, unknown>;
  stream: SseReader;
}

async function connect(client: Omit<Client, 'stream'>, lastEventId?: number): Promise<Client> {
  const stream = await openStream(api.port, '/acme/v1/stream', {
    headers: {
      'x-service-api-key': keys[client.kind],
      ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
    },
  });
  expect(stream.status).toBe(200);
  return { ...client, stream };
}

/**
 * Reads the stream up to its `resync`, taking in the changes before it (a replay); a resync to
 * a revision it does not have makes it sync. Returns how it caught up.
 */
async function catchUp(client: Client): Promise<'replay' | 'sync' | 'current'> {
  let replayed = 0;
  for (;;) {
    const event: SseEvent = await client.stream.next(() => true, 10_000);
    const data = JSON.parse(event.data);
    if (event.event === 'change') {
      client.configs.set(data.key, data.value);
      client.revision = data.revision;
      replayed++;
      continue;
    }
    expect(event.event).toBe('resync');
    if (data.revision === client.revision) return replayed > 0 ? 'replay' : 'current';
    const body = (await sync(client.kind)).json();
    client.configs = new Map(Object.entries(body.configs));
    client.revision = body.revision;
    return 'sync';
  }
}

/** Every client sees what a fresh sync of its key sees. */
async function expectConverged(clients: Client[]): Promise<void> {
  for (const client of clients) {
    const body = (await sync(client.kind)).json();
    expect(client.revision).toBe(body.revision);
    expect(Object.fromEntries(client.configs)).toStrictEqual(body.configs);
  }
}

describe('an api restarted under connected clients', () => {
  it('brings every client up to date: by sync after changes it missed, by replay where it can', async () => {
    await putConfig('ui.theme', 'light');
    let clients = await Promise.all(
      (['sk', 'pk'] as const).flatMap((kind) =>
        Array.from({ length: CLIENTS }, () => connect({ kind, revision: -1, configs: new Map() })),
      ),
    );
    for (const client of clients) expect(await catchUp(client)).toBe('sync');

    // Killed outright; a change lands while it is down: the new process starts past it, with
    // no history from before, so each reconnecting client is told to resync, and syncs.
    await api.kill('SIGKILL');
    await putConfig('ui.theme', 'dark');
    await api.start();
    clients = await Promise.all(clients.map((c) => connect(c, c.revision)));
    for (const client of clients) expect(await catchUp(client)).toBe('sync');
    await expectConverged(clients);
    expect(clients[0]!.configs.get('ui.theme')).toBe('dark');

    // Stopped cleanly (streams end). The new process keeps a view's history from the moment a
    // stream of it opens: the first client of each kind back is current; a change lands; the
    // others, reconnecting later at the revision those first ones had, get it replayed.
    await api.kill('SIGTERM');
    for (const client of clients) expect(await client.stream.ended).toBe('end');
    await api.start();
    const first = [clients[0]!, clients.at(-1)!];
    const rest = clients.slice(1, -1);
    const back = await Promise.all(first.map((c) => connect(c, c.revision)));
    for (const client of back) expect(await catchUp(client)).toBe('current');
    await putConfig('ui.banner', 'maintenance at noon');
    for (const client of back) {
      const change = await client.stream.next((e) => e.event === 'change', 10_000);
      client.configs.set('ui.banner', JSON.parse(change.data).value);
      client.revision = Number(change.id);
    }
    const later = await Promise.all(rest.map((c) => connect(c, c.revision)));
    for (const client of later) expect(await catchUp(client)).toBe('replay');
    clients = [...back, ...later];
    await expectConverged(clients);
    expect(clients.at(-1)!.configs.get('ui.banner')).toBe('maintenance at noon');
    for (const client of clients) client.stream.close();
  }, 60_000);
});
