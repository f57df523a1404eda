/**
 * Workload identity end to end: the real console and api (in this process, temp SQLite), the
 * identities made through the management API, and the testkit's stand-ins for every platform
 * (OIDC issuer, Kubernetes api server over HTTPS, STS checking SigV4, GCP and Azure metadata).
 * A client of each method gets a working key from the api's exchange; a client whose keys live
 * 60 s (the shortest the api mints) and refresh every 3 s keeps serving across the refreshes and
 * misses no change made across them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, waitFor } from '@svc/testkit';
import {
  createIdentity,
  startIdentityPlatforms,
  type IdentityPlatforms,
} from '@svc/testkit/identity';
import { ServiceClient, type ChangeSet, type WorkloadIdentity } from '../src/index.ts';
import { memoryLogger, sleep } from './support/fake-service.ts';
import { startInProcess, type LiveServer } from './support/server.ts';

const P = '/workspaces/acme/projects/web';

let server: LiveServer;
let platforms: IdentityPlatforms;
const dir = tempDir('svc-identity-e2e-');
const ids: Record<string, string> = {};
const clients: ServiceClient[] = [];

const identity = (method: string, block: Record<string, unknown>, ttl = 900) =>
  createIdentity(server.admin, P, method, block, { name: `${method} ${ttl}`, ttl_s: ttl });

async function create(settings: WorkloadIdentity, more: { stream?: boolean } = {}) {
  const log = memoryLogger();
  const client = await ServiceClient.create({
    baseUrl: `${server.apiUrl}/acme`,
    identity: settings,
    logger: log.logger,
    stream: more.stream ?? false,
  });
  clients.push(client);
  return { client, log };
}

beforeAll(async () => {
  server = await startInProcess({ IDENTITY_ALLOW_HTTP: 'true' });
  platforms = await startIdentityPlatforms();
  await server.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await server.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  await server.admin('PUT', `${P}/configs/greeting`, { value: 'hello', is_public: false });
  ids.oidc = await identity('oidc', { issuer: platforms.oidc.issuer, audiences: ['svc'] });
  ids.kubernetes = await identity('kubernetes', {
    api_server: platforms.kubernetes.url,
    ca_cert: platforms.kubernetes.caCert,
    reviewer_token: platforms.kubernetes.issueReviewerToken(),
    namespaces: ['payments'],
    service_accounts: ['checkout'],
  });
  ids.aws = await identity('aws', {
    accounts: [platforms.aws.principal.account],
    principal_arns: ['arn:aws:iam::123456789012:role/checkout-*'],
    sts_endpoint: `${platforms.aws.url}/`,
    server_id: 'svc.test',
  });
  ids.gcp = await identity('gcp', {
    audience: 'https://svc.test',
    service_accounts: [platforms.gcp.email],
    jwks_url: platforms.gcp.issuer.jwksUrl,
  });
  ids.azure = await identity('azure', {
    tenant_id: platforms.azure.tenantId,
    audience: 'api://svc',
    principal_ids: [platforms.azure.principalId],
    jwks_url: platforms.azure.issuer.jwksUrl,
  });
  ids.short = await identity('oidc', { issuer: platforms.oidc.issuer, audiences: ['svc'] }, 60);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server?.stop();
  await platforms?.close();
});

describe('every method against the real api', () => {
  const oidcToken = () => platforms.oidc.sign({ sub: 'repo:acme/web', aud: 'svc' });

  it('oidc (a callback) and kubernetes (the projected token file)', async () => {
    const oidc = await create({ identityId: ids.oidc!, method: 'oidc', token: oidcToken });
    expect(oidc.client.getConfig('greeting')).toBe('hello');
    const tokenFile = join(dir, 'k8s-token');
    writeFileSync(
      tokenFile,
      platforms.kubernetes.issueToken({ namespace: 'payments', serviceAccount: 'checkout' }),
    );
    const kube = await create({ identityId: ids.kubernetes!, method: 'kubernetes', tokenFile });
    expect(kube.client.getConfig('greeting')).toBe('hello');
  });

  it('aws: the request the client signed is accepted by STS through the api, X-Svc-Server-Id signed', async () => {
    const { client } = await create({
      identityId: ids.aws!,
      method: 'aws',
      stsEndpoint: `${platforms.aws.url}/`,
      serverId: 'svc.test',
      credentials: platforms.aws.principal,
    });
    expect(client.getConfig('greeting')).toBe('hello');
    expect(platforms.aws.requests.at(-1)).toMatchObject({
      accessKeyId: platforms.aws.principal.accessKeyId,
      accepted: true,
    });
    expect(platforms.aws.requests.at(-1)!.headers['x-svc-server-id']).toBe('svc.test');
  });

  it('gcp and azure: the metadata servers’ tokens for the audience', async () => {
    const gcp = await create({
      identityId: ids.gcp!,
      method: 'gcp',
      audience: 'https://svc.test',
      metadataUrl: platforms.gcp.metadata.url,
    });
    expect(gcp.client.getConfig('greeting')).toBe('hello');
    const azure = await create({
      identityId: ids.azure!,
      method: 'azure',
      audience: 'api://svc',
      metadataUrl: platforms.azure.imds.url,
    });
    expect(azure.client.getConfig('greeting')).toBe('hello');
  });

  it('a token the api refuses fails create() with the failed check', async () => {
    const error = await create({
      identityId: ids.oidc!,
      method: 'oidc',
      token: () => platforms.oidc.sign({ sub: 'repo:acme/web', aud: 'another' }),
    }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('identity exchange: HTTP 401 unauthorized');
    expect((error as Error).message).toContain('audience');
  });
});

describe('refreshing against the real api', () => {
  it('keeps serving across refreshes and misses no change made across them (Last-Event-ID)', async () => {
    let exchanges = 0;
    const { client, log } = await create(
      {
        identityId: ids.short!,
        method: 'oidc',
        token: () => {
          exchanges++;
          return platforms.oidc.sign({ sub: 'repo:acme/web', aud: 'svc' });
        },
        // 5% of 60 s: a new key every 3 s.
        refreshAt: 0.05,
      },
      { stream: true },
    );
    await waitFor(() => client.isStreamConnected(), 10_000);
    const seen: ChangeSet[] = [];
    client.onChange((change) => seen.push(change));
    const started = Date.now();
    let n = 0;
    while (Date.now() - started < 10_000) {
      n++;
      await server.admin('PUT', `${P}/configs/e2e.c${n}`, { value: n, is_public: false });
      await sleep(100);
    }
    await waitFor(() => client.getConfig(`e2e.c${n}`) === n, 10_000);

    expect(exchanges).toBeGreaterThanOrEqual(4);
    const received = seen.flatMap((set) => set.changes.map((change) => change.key));
    expect(received).toEqual(Array.from({ length: n }, (_, i) => `e2e.c${i + 1}`));
    expect(seen.every((set) => set.source === 'stream')).toBe(true);
    const connected = log.lines.filter((l) => l.message === 'stream connected');
    expect(connected.length).toBeGreaterThanOrEqual(4);
    expect(client.getStatus().error).toBeNull();
    const listed = (await server.admin('GET', `${P}/identities`)).json();
    expect(listed.find((i: { id: string }) => i.id === ids.short).live_keys).toBeGreaterThanOrEqual(
      4,
    );
  }, 60_000);
});
