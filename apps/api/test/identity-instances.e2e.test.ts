/**
 * Workload identities with two api processes on one PostgreSQL (and the console): a key minted
 * through one instance works on the other, the exchange budget is shared, and deleting the
 * identity revokes its keys on both within a second, streams included.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCalls, httpCall, waitFor } from '@svc/testkit';
import { startAppProcess, type AppProcess } from '@svc/testkit/app-process';
import { startOidcIssuer, type OidcIssuer } from '@svc/testkit/identity';
import { openStream } from '@svc/sse/testing';
import {
  createTestDatabase,
  requirePostgres,
  type TestDatabase,
} from '@svc/storage-postgres/testing';

const TOKEN = 'test-admin-token-identity-0123456789';
const P = '/workspaces/acme/projects/web';
const EXCHANGE_MAX = 4;

const { server } = await requirePostgres();

let processes: AppProcess[] = [];
let database: TestDatabase | undefined;
let issuer: OidcIssuer;
let apis: number[] = [];
const { admin } = adminCalls(() => processes[0]!.port, TOKEN);

async function exchange(port: number, identityId: string) {
  return httpCall(port, 'POST', '/acme/v1/auth/token', {
    body: { identity_id: identityId, token: await issuer.sign({ sub: 'ci', aud: 'svc' }) },
  });
}

const sync = (port: number, key: string) =>
  httpCall(port, 'GET', '/acme/v1/sync', { headers: { 'x-service-api-key': key } });

async function createIdentity(name: string): Promise<string> {
  const res = await admin('POST', `${P}/identities`, {
    name,
    kind: 'secret',
    method: 'oidc',
    oidc: { issuer: issuer.issuer, audiences: ['svc'] },
  });
  return res.json().id;
}

describe.skipIf(!server)('workload identities on two api instances (PostgreSQL)', () => {
  beforeAll(async () => {
    issuer = await startOidcIssuer();
    database = await createTestDatabase(server!);
    const shared = {
      DATABASE_URL: database.url,
      SERVICE_ROOT_KEY: randomBytes(32).toString('base64'),
      CONSOLE_ADMIN_TOKEN: TOKEN,
      SEED_DEMO: 'false',
      IDENTITY_ALLOW_HTTP: 'true',
      IDENTITY_EXCHANGE_MAX: String(EXCHANGE_MAX),
    };
    // Each with a data folder of its own: they share only the database and the root key.
    processes = await Promise.all([
      startAppProcess('console', shared),
      startAppProcess('api', shared),
      startAppProcess('api', shared),
    ]);
    apis = processes.slice(1).map((p) => p.port);
    await admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
    await admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  }, 60_000);

  afterAll(async () => {
    for (const p of processes) await p.kill('SIGTERM');
    await Promise.all(processes.map((p) => p.remove()));
    await database?.drop();
    await issuer?.close();
  }, 30_000);

  it('accepts a key minted on one instance on the other, and shares the exchange budget', async () => {
    const identity = await createIdentity('shared budget');
    const [a, b] = apis as [number, number];
    const minted = (await exchange(a, identity)).json();
    expect((await sync(a, minted.key)).status).toBe(200);
    await waitFor(async () => (await sync(b, minted.key)).status === 200, 2000);
    const statuses = [
      (await exchange(b, identity)).status,
      (await exchange(a, identity)).status,
      (await exchange(b, identity)).status,
    ];
    expect(statuses).toStrictEqual([200, 200, 200]);
    const over = await exchange(a, identity);
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('revokes the keys on both instances within a second when the identity is deleted', async () => {
    const identity = await createIdentity('deleted');
    const [a, b] = apis as [number, number];
    const keys = [
      (await exchange(a, identity)).json().key,
      (await exchange(b, identity)).json().key,
    ];
    await waitFor(
      async () =>
        (await sync(a, keys[1])).status === 200 && (await sync(b, keys[0])).status === 200,
      2000,
    );
    const streams = await Promise.all(
      apis.flatMap((port) =>
        keys.map((key) =>
          openStream(port, '/acme/v1/stream', { headers: { 'x-service-api-key': key } }),
        ),
      ),
    );
    await Promise.all(streams.map((s) => s.next()));

    const started = Date.now();
    await admin('DELETE', `${P}/identities/${identity}`);
    const ends = await Promise.all(streams.map((s) => s.ended.then(() => Date.now() - started)));
    expect(Math.max(...ends)).toBeLessThan(1000);
    for (const port of apis)
      for (const key of keys) expect((await sync(port, key)).status).toBe(401);
  });
});
