/**
 * Workload identity federation end to end: identities made through the console's management
 * API, tokens from the testkit's stand-ins (OIDC issuer, Kubernetes api server over HTTPS, STS
 * checking real SigV4, GCP and Azure metadata servers), exchanged at the api's
 * `POST /v1/auth/token`, and the minted keys used on every /v1 route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStream } from '@svc/sse/testing';
import {
  createIdentities,
  signGetCallerIdentity,
  startIdentityPlatforms,
  type IdentityPlatforms,
} from '@svc/testkit/identity';
import { httpCall, startHarness, type Harness } from './harness.ts';

const P = '/workspaces/acme/projects/web';

let h: Harness;
let platforms: IdentityPlatforms;
const ids: Record<string, string> = {};

async function ok(method: string, path: string, body?: unknown) {
  const res = await h.admin(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res;
}

const exchange = (body: unknown, slug = 'acme') =>
  httpCall(h.api.port, 'POST', `/${slug}/v1/auth/token`, { body });

/** Blocks of one identity per method, pointing at the stand-ins. */
function blocks(): Record<string, Record<string, unknown>> {
  return {
    oidc: {
      issuer: platforms.oidc.issuer,
      audiences: ['svc'],
      subject: 'repo:acme/*',
      claims: { repository_owner: 'acme' },
    },
    kubernetes: {
      api_server: platforms.kubernetes.url,
      ca_cert: platforms.kubernetes.caCert,
      reviewer_token: platforms.kubernetes.issueReviewerToken(),
      namespaces: ['payments'],
      service_accounts: ['checkout'],
    },
    aws: {
      accounts: ['123456789012'],
      principal_arns: ['arn:aws:iam::123456789012:role/checkout-*'],
      sts_endpoint: `${platforms.aws.url}/`,
      server_id: 'svc.test',
    },
    gcp: {
      audience: 'https://svc.test',
      service_accounts: [platforms.gcp.email],
      projects: ['web-prod'],
      jwks_url: platforms.gcp.issuer.jwksUrl,
    },
    azure: {
      tenant_id: platforms.azure.tenantId,
      audience: 'api://svc',
      principal_ids: [platforms.azure.principalId],
      jwks_url: platforms.azure.issuer.jwksUrl,
    },
  };
}

/** What each method's workload presents, got from its platform (stand-in). */
async function credential(method: string): Promise<Record<string, unknown>> {
  switch (method) {
    case 'oidc':
      return {
        token: await platforms.oidc.sign({
          sub: 'repo:acme/web:ref:refs/heads/main',
          aud: 'svc',
          repository_owner: 'acme',
        }),
      };
    case 'kubernetes':
      return {
        token: platforms.kubernetes.issueToken({
          namespace: 'payments',
          serviceAccount: 'checkout',
        }),
      };
    case 'aws':
      return {
        aws: await signGetCallerIdentity(platforms.aws.principal, {
          endpoint: `${platforms.aws.url}/`,
          serverId: 'svc.test',
        }),
      };
    case 'gcp':
      return {
        token: await platforms.gcp.metadata.identityToken('https://svc.test', { full: true }),
      };
    default:
      return { token: await platforms.azure.imds.accessToken('api://svc') };
  }
}

async function mint(
  method: string,
  identity = ids[method]!,
): Promise<{ key: string; kind: string; expires_at: string; expires_in: number }> {
  const res = await exchange({ identity_id: identity, ...(await credential(method)) });
  if (res.status !== 200) throw new Error(`exchange ${method}: ${res.status} ${res.text}`);
  return res.json();
}

beforeAll(async () => {
  h = await startHarness({ IDENTITY_ALLOW_HTTP: 'true', IDENTITY_EXCHANGE_MAX: '20' });
  platforms = await startIdentityPlatforms();
  await ok('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await ok('POST', '/workspaces', { slug: 'other', name: 'Other' });
  await ok('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  await ok('PATCH', P, { ab_testing: true });
  await ok('POST', `${P}/services`, { slug: 'checkout', name: 'Checkout' });
  await ok('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
  await ok('PUT', `${P}/flags/checkout.v2`, { is_active: true });
  await ok('PUT', `${P}/services/checkout/secrets/stripe.key`, { value: 'sk_live_identity_e2e' });
  const fields = (method: string) => ({
    name: `${method} workload`,
    service: 'checkout',
    ttl_s: 900,
  });
  Object.assign(ids, await createIdentities(h.admin, P, blocks(), fields));
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await platforms?.close();
});

describe('identities in the management API', () => {
  it('lists them with their method block, never the reviewer token, and their live keys', async () => {
    const list = (await ok('GET', `${P}/identities`)).json();
    expect(list.map((i: any) => i.method).sort()).toStrictEqual([
      'aws',
      'azure',
      'gcp',
      'kubernetes',
      'oidc',
    ]);
    const kube = list.find((i: any) => i.method === 'kubernetes');
    expect(kube).toMatchObject({
      name: 'kubernetes workload',
      kind: 'secret',
      service: 'checkout',
      ttl_s: 900,
      kubernetes: {
        api_server: platforms.kubernetes.url,
        namespaces: ['payments'],
        service_accounts: ['checkout'],
        reviewer_token_set: true,
      },
      last_used_at: null,
      live_keys: 0,
    });
    expect(JSON.stringify(list)).not.toContain(blocks().kubernetes!.reviewer_token as string);
    expect(kube.kubernetes).not.toHaveProperty('reviewer_token');
    expect(list.find((i: any) => i.method === 'aws').aws).toMatchObject({
      sts_endpoint: `${platforms.aws.url}/`,
      server_id: 'svc.test',
    });
  });

  it('refuses bad identities with 400 naming the field', async () => {
    const bad = async (body: unknown) => (await h.admin('POST', `${P}/identities`, body)).json();
    expect(await bad({ name: 'x', kind: 'secret', method: 'oidc' })).toMatchObject({
      status: 400,
      field: 'oidc.issuer',
    });
    expect(
      await bad({
        name: 'x',
        kind: 'secret',
        method: 'oidc',
        oidc: { issuer: 'https://i', audiences: ['a'] },
        aws: {},
      }),
    ).toMatchObject({
      status: 400,
      field: 'aws',
    });
    expect(
      await bad({
        name: 'x',
        kind: 'secret',
        method: 'kubernetes',
        kubernetes: {
          api_server: 'file:///etc/passwd',
          namespaces: ['a'],
          service_accounts: ['b'],
        },
      }),
    ).toMatchObject({ status: 400, field: 'kubernetes.api_server' });
    expect(
      await bad({ name: 'x', kind: 'secret', method: 'aws', aws: { accounts: ['1'] }, ttl_s: 30 }),
    ).toMatchObject({ status: 400, field: 'ttl_s' });
    expect(
      await bad({
        name: 'oidc workload',
        kind: 'secret',
        method: 'aws',
        aws: { accounts: ['123456789012'] },
      }),
    ).toMatchObject({
      status: 409,
    });
  });

  it('patches fields, keeps the sealed reviewer token unless it is given, and answers 404 for unknown ids', async () => {
    const created = (
      await ok('POST', `${P}/identities`, {
        name: 'patchable',
        kind: 'public',
        method: 'kubernetes',
        kubernetes: blocks().kubernetes,
      })
    ).json();
    const patched = (
      await ok('PATCH', `${P}/identities/${created.id}`, {
        ttl_s: 120,
        kubernetes: { namespaces: ['web'] },
      })
    ).json();
    expect(patched).toMatchObject({
      ttl_s: 120,
      service: null,
      kubernetes: { namespaces: ['web'], service_accounts: ['checkout'], reviewer_token_set: true },
    });
    const cleared = (
      await ok('PATCH', `${P}/identities/${created.id}`, { kubernetes: { reviewer_token: null } })
    ).json();
    expect(cleared.kubernetes.reviewer_token_set).toBe(false);
    const moved = (
      await ok('PATCH', `${P}/identities/${created.id}`, {
        method: 'aws',
        aws: { accounts: ['123456789012'] },
      })
    ).json();
    expect(moved).toMatchObject({
      method: 'aws',
      aws: { accounts: ['123456789012'], sts_endpoint: 'https://sts.amazonaws.com' },
    });
    expect(moved).not.toHaveProperty('kubernetes');
    expect((await h.admin('PATCH', `${P}/identities/nope`, { ttl_s: 60 })).status).toBe(404);
    expect((await h.admin('DELETE', `${P}/identities/nope`)).status).toBe(404);
    await ok('DELETE', `${P}/identities/${created.id}`);
  });
});

describe('the exchange', () => {
  it.each(['oidc', 'kubernetes', 'aws', 'gcp', 'azure'])(
    'mints a working key for a %s workload',
    async (method) => {
      const before = Date.now();
      const minted = await mint(method);
      expect(minted.key).toMatch(/^svs_[0-9A-Za-z]{40}$/);
      expect(minted).toMatchObject({ kind: 'secret', expires_in: 900 });
      expect(Date.parse(minted.expires_at)).toBeGreaterThanOrEqual(before + 899_000);
      const headers = { 'x-service-api-key': minted.key };

      const sync = await h.sync(minted.key);
      expect(sync.status).toBe(200);
      expect(sync.json().secrets['stripe.key'].value).toBe('sk_live_identity_e2e');
      const stream = await openStream(h.api.port, '/acme/v1/stream', { headers });
      expect(stream.status).toBe(200);
      expect((await stream.next()).event).toBe('resync');
      stream.close();
      const ab = await httpCall(h.api.port, 'POST', '/acme/v1/flags/evaluate-ab', {
        headers,
        body: { flags: ['checkout.v2'], user_id: 'u-1' },
      });
      expect(ab.json()).toStrictEqual({ results: { 'checkout.v2': true } });
      const write = await httpCall(h.api.port, 'PUT', `/acme/v1/secrets/written.by.${method}`, {
        headers,
        body: { value: method },
      });
      expect(write.status).toBe(201);
    },
  );

  it('mints public keys for a public identity: no secret, no writes', async () => {
    const created = (
      await ok('POST', `${P}/identities`, {
        name: 'browser app',
        kind: 'public',
        method: 'oidc',
        oidc: blocks().oidc,
      })
    ).json();
    const minted = await mint('oidc', created.id);
    expect(minted.key).toMatch(/^svp_/);
    expect(minted.kind).toBe('public');
    const sync = await h.sync(minted.key);
    expect(sync.json()).toMatchObject({ key_type: 'pk', configs: { 'ui.theme': 'dark' } });
    expect(sync.text).not.toContain('sk_live_identity_e2e');
    const write = await httpCall(h.api.port, 'PUT', '/acme/v1/secrets/x', {
      headers: { 'x-service-api-key': minted.key },
      body: { value: 'v' },
    });
    expect(write.status).toBe(403);
  });

  it('never lists minted keys with the static ones, and audits each exchange', async () => {
    const minted = await mint('oidc');
    const keys = (await ok('GET', `${P}/keys`)).json();
    expect(keys.map((k: any) => k.prefix)).not.toContain(minted.key.slice(0, 10));
    const audit = (await ok('GET', '/workspaces/acme/audit')).json();
    expect(audit[0]).toMatchObject({
      actor: 'identity:oidc workload',
      action: 'identity.exchange',
      target: expect.stringContaining(
        `repo:acme/web:ref:refs/heads/main → ${minted.key.slice(0, 10)}…`,
      ),
    });
    const listed = (await ok('GET', `${P}/identities`)).json().find((i: any) => i.id === ids.oidc);
    expect(listed.live_keys).toBeGreaterThanOrEqual(2);
    expect(listed.last_used_at).not.toBeNull();
  });

  it('answers a failed check with 401 naming it, and never echoes the token', async () => {
    const token = await platforms.oidc.sign({
      sub: 'repo:acme/web',
      aud: 'other',
      repository_owner: 'acme',
    });
    const res = await exchange({ identity_id: ids.oidc, token });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({
      code: 'unauthorized',
      detail: expect.stringMatching(/^audience: /),
    });
    expect(res.text).not.toContain(token);
    const wrongNs = await exchange({
      identity_id: ids.kubernetes,
      token: platforms.kubernetes.issueToken({ namespace: 'default', serviceAccount: 'checkout' }),
    });
    expect(wrongNs.json().detail).toBe('not_allowed: namespace default is not allowed');
    const noServerId = await exchange({
      identity_id: ids.aws,
      aws: await signGetCallerIdentity(platforms.aws.principal, {
        endpoint: `${platforms.aws.url}/`,
      }),
    });
    expect(noServerId.json().detail).toMatch(/^server_id: /);
    const unknown = await exchange({ identity_id: 'no-such-identity', token });
    expect(unknown.json()).toMatchObject({
      status: 401,
      detail: expect.stringMatching(/^identity: /),
    });
    const foreign = await exchange({ identity_id: ids.oidc, token }, 'other');
    expect(foreign.json().detail).toMatch(/^identity: /);
  });

  it('refuses an aws request to another host with 400 before any call', async () => {
    const before = platforms.aws.requests.length;
    const signed = await signGetCallerIdentity(platforms.aws.principal, {
      endpoint: 'http://169.254.169.254/',
      serverId: 'svc.test',
    });
    const res = await exchange({ identity_id: ids.aws, aws: signed });
    expect(res.json()).toMatchObject({ status: 400, field: 'aws.url' });
    expect(platforms.aws.requests.length).toBe(before);
  });

  it('answers malformed bodies with 400, unknown workspaces with 404, and takes no API key', async () => {
    expect((await exchange({ identity_id: ids.oidc })).json()).toMatchObject({
      status: 400,
      field: 'token',
    });
    expect((await exchange({ identity_id: ids.oidc, token: 'x', aws: {} })).json()).toMatchObject({
      status: 400,
    });
    expect((await exchange({ token: 'x' })).json()).toMatchObject({
      status: 400,
      field: 'identity_id',
    });
    const notBase64 = {
      method: 'POST',
      url: 'https://sts.amazonaws.com/',
      headers: {},
      body: '%%%',
    };
    expect((await exchange({ identity_id: ids.aws, aws: notBase64 })).json()).toMatchObject({
      status: 400,
      field: 'aws.body',
    });
    expect((await exchange({ identity_id: ids.oidc, token: 'x' }, 'nope')).status).toBe(404);
  });

  it('is 502 when the upstream is out of reach', async () => {
    const created = (
      await ok('POST', `${P}/identities`, {
        name: 'dead issuer',
        kind: 'secret',
        method: 'oidc',
        oidc: { issuer: 'http://127.0.0.1:9', audiences: ['svc'] },
      })
    ).json();
    const res = await exchange({
      identity_id: created.id,
      token: await platforms.oidc.sign({ sub: 's', aud: 'svc' }),
    });
    expect(res.json()).toMatchObject({ status: 502, code: 'upstream_unavailable' });
  });

  it('limits exchanges per identity, with Retry-After', async () => {
    const created = (
      await ok('POST', `${P}/identities`, {
        name: 'limited',
        kind: 'secret',
        method: 'oidc',
        oidc: blocks().oidc,
      })
    ).json();
    const statuses: number[] = [];
    let limited;
    for (let i = 0; i < 21; i++) {
      const res = await exchange({ identity_id: created.id, token: 'not-even-a-jwt' });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses[20]).toBe(429);
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThan(0);
    // Another identity has its own budget.
    expect((await exchange({ identity_id: ids.oidc, ...(await credential('oidc')) })).status).toBe(
      200,
    );
  });

  it('revokes every minted key when the identity is deleted, closing their streams within a second', async () => {
    const created = (
      await ok('POST', `${P}/identities`, {
        name: 'short-lived',
        kind: 'secret',
        method: 'oidc',
        oidc: blocks().oidc,
      })
    ).json();
    const keys = [await mint('oidc', created.id), await mint('oidc', created.id)];
    const streams = await Promise.all(
      keys.map((k) =>
        openStream(h.api.port, '/acme/v1/stream', { headers: { 'x-service-api-key': k.key } }),
      ),
    );
    await Promise.all(streams.map((s) => s.next()));
    const started = Date.now();
    await ok('DELETE', `${P}/identities/${created.id}`);
    for (const s of streams) expect(await s.ended).toBe('end');
    expect(Date.now() - started).toBeLessThan(1000);
    for (const k of keys) expect((await h.sync(k.key)).status).toBe(401);
    expect(
      (await exchange({ identity_id: created.id, ...(await credential('oidc')) })).status,
    ).toBe(401);
  });
});
