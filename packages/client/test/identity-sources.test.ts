/**
 * Workload identity token sources, each against a real socket: the token files of Kubernetes
 * and OIDC, an OIDC callback, the GCP metadata server and the Azure instance metadata service
 * (stand-ins), and an AWS `GetCallerIdentity` signed with the AWS SDK's signer from given and
 * from default-chain credentials, checked on the receiving side with `@smithy/signature-v4`.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '@svc/testkit';
import {
  ServiceClient,
  ServiceInitError,
  type AwsCredentials,
  type WorkloadIdentity,
} from '../src/index.ts';
import { ExchangeService, type ExchangeBody } from './support/exchange-service.ts';
import { memoryLogger } from './support/fake-service.ts';
import { sigv4Problem } from './support/sigv4-check.ts';

let service: ExchangeService;
const dir = tempDir('svc-identity-');
const clients: ServiceClient[] = [];

beforeAll(async () => {
  service = await new ExchangeService().start();
  service.ttlSeconds = 600;
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  service.exchanges.length = 0;
  service.metadataRequests.length = 0;
  service.verify = () => ({ ok: true });
});
afterAll(async () => {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function create(identity: Omit<WorkloadIdentity, 'identityId'>): Promise<ServiceClient> {
  const client = await ServiceClient.create({
    baseUrl: service.baseUrl,
    identity: { identityId: service.identityId, ...identity } as WorkloadIdentity,
    stream: false,
    logger: memoryLogger().logger,
  });
  clients.push(client);
  return client;
}

/** The exchange's failure at `create()`: the reason's message. */
async function createFails(identity: Omit<WorkloadIdentity, 'identityId'>): Promise<string> {
  const error = await create(identity).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ServiceInitError);
  return ((error as Error).cause as Error).message;
}

describe('token files', () => {
  it('kubernetes: sends the projected token file, read again at each exchange (rotation)', async () => {
    const file = join(dir, 'k8s-token');
    writeFileSync(file, 'k8s-token-1\n');
    const client = await create({ method: 'kubernetes', tokenFile: file });
    expect(service.exchanges).toEqual([{ identity_id: service.identityId, token: 'k8s-token-1' }]);
    expect(client.getKeyType()).toBe('sk');

    writeFileSync(file, 'k8s-token-2');
    await create({ method: 'kubernetes', tokenFile: file });
    expect(service.exchanges[1]).toEqual({ identity_id: service.identityId, token: 'k8s-token-2' });
  });

  it('kubernetes: the default file is the service account token path', async () => {
    expect(await createFails({ method: 'kubernetes' })).toBe(
      'identity: cannot read the token file /var/run/secrets/kubernetes.io/serviceaccount/token (ENOENT)',
    );
    expect(service.exchanges).toEqual([]);
  });

  it('oidc: a token file; an empty or oversized one is refused before any exchange', async () => {
    const file = join(dir, 'oidc-token');
    writeFileSync(file, '  eyJ.oidc.token  ');
    await create({ method: 'oidc', tokenFile: file });
    expect(service.exchanges[0]?.token).toBe('eyJ.oidc.token');

    writeFileSync(file, '\n');
    expect(await createFails({ method: 'oidc', tokenFile: file })).toContain('gave an empty token');
    writeFileSync(file, 'x'.repeat(65 * 1024));
    expect(await createFails({ method: 'oidc', tokenFile: file })).toContain('larger than 65536');
    expect(service.exchanges).toHaveLength(1);
  });
});

describe('oidc callback', () => {
  it('asks the callback at each exchange; its failure is the reason', async () => {
    let n = 0;
    await create({ method: 'oidc', token: async () => `ci-token-${++n}` });
    await create({ method: 'oidc', token: () => `ci-token-${++n}` });
    expect(service.exchanges.map((e) => e.token)).toEqual(['ci-token-1', 'ci-token-2']);

    const reason = await createFails({
      method: 'oidc',
      token: () => {
        throw new Error('no CI token');
      },
    });
    expect(reason).toBe('identity: the token callback failed');
  });
});

describe('metadata servers', () => {
  it('gcp: an identity token for the audience, full format, with Metadata-Flavor', async () => {
    service.gcpToken = 'gcp.jwt.token';
    await create({
      method: 'gcp',
      audience: 'https://svc.example/acme',
      metadataUrl: `${service.origin}/gcp`,
    });
    const [request] = service.metadataRequests;
    const url = new URL(request!.url, service.origin);
    expect(url.pathname).toBe('/gcp/computeMetadata/v1/instance/service-accounts/default/identity');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      audience: 'https://svc.example/acme',
      format: 'full',
    });
    expect(request!.headers['metadata-flavor']).toBe('Google');
    expect(service.exchanges[0]?.token).toBe('gcp.jwt.token');
  });

  it('azure: a managed identity token for the audience (resource), optionally a user-assigned one', async () => {
    service.azureToken = 'azure.jwt.token';
    const metadataUrl = `${service.origin}/azure/`;
    await create({ method: 'azure', audience: 'api://svc', metadataUrl });
    await create({ method: 'azure', audience: 'api://svc', metadataUrl, clientId: 'c-123' });
    const [system, user] = service.metadataRequests.map((r) => new URL(r.url, service.origin));
    expect(system!.pathname).toBe('/azure/metadata/identity/oauth2/token');
    expect(Object.fromEntries(system!.searchParams)).toEqual({
      'api-version': '2018-02-01',
      resource: 'api://svc',
    });
    expect(user!.searchParams.get('client_id')).toBe('c-123');
    expect(service.metadataRequests[0]!.headers.metadata).toBe('true');
    expect(service.exchanges.map((e) => e.token)).toEqual(['azure.jwt.token', 'azure.jwt.token']);
  });

  it('a metadata server that refuses or is not there fails create() naming it', async () => {
    const refused = await createFails({
      method: 'gcp',
      audience: 'x',
      metadataUrl: `${service.origin}/gcp/nowhere`,
    });
    expect(refused).toBe('identity: the GCP metadata server answered HTTP 404');
    const down = await createFails({
      method: 'azure',
      audience: 'x',
      metadataUrl: 'http://127.0.0.1:9',
    });
    expect(down).toMatch(/^identity: the Azure metadata service failed: /);
    expect(service.exchanges).toEqual([]);
  });
});

describe('aws', () => {
  const credentials: AwsCredentials = {
    accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    sessionToken: 'session-token-example',
  };

  /** The exchange accepts only a request signed by `by`, for us-east-1 unless said. */
  function acceptSignedBy(by: AwsCredentials, region = 'us-east-1', mustSign: string[] = []) {
    const problems: (string | undefined)[] = [];
    service.verify = async (body: ExchangeBody) => {
      const problem = await sigv4Problem(body.aws ?? {}, by, { region, mustSign });
      problems.push(problem);
      return problem === undefined
        ? { ok: true }
        : { ok: false, status: 401, code: 'unauthorized', detail: 'upstream_rejected' };
    };
    return problems;
  }

  it('signs GetCallerIdentity for the global STS endpoint with the given credentials', async () => {
    const problems = acceptSignedBy(credentials);
    await create({ method: 'aws', credentials });
    expect(problems).toEqual([undefined]);
    const { aws, token } = service.exchanges[0]!;
    expect(token).toBeUndefined();
    expect(aws).toMatchObject({ method: 'POST', url: 'https://sts.amazonaws.com/' });
    expect(Buffer.from(String(aws!.body), 'base64').toString()).toBe(
      'Action=GetCallerIdentity&Version=2011-06-15',
    );
    expect(aws!.headers).toMatchObject({
      host: 'sts.amazonaws.com',
      'x-amz-security-token': 'session-token-example',
    });
  });

  it('signs X-Svc-Server-Id with it, for a regional endpoint and its region', async () => {
    const problems = acceptSignedBy(credentials, 'eu-west-1', ['x-svc-server-id']);
    await create({
      method: 'aws',
      credentials: async () => credentials,
      serverId: 'svc.example.com',
      stsEndpoint: 'https://sts.eu-west-1.amazonaws.com',
    });
    expect(problems).toEqual([undefined]);
    expect(service.exchanges[0]!.aws!.headers!['x-svc-server-id']).toBe('svc.example.com');
  });

  it('the check fails for other credentials or a changed header (so it can tell)', async () => {
    const problems = acceptSignedBy({ ...credentials, secretAccessKey: 'another-secret' });
    expect(await createFails({ method: 'aws', credentials })).toBe(
      'identity exchange: HTTP 401 unauthorized: upstream_rejected',
    );
    expect(problems).toEqual(['bad signature']);

    const tampered = {
      ...service.exchanges[0]!.aws!,
      headers: { ...service.exchanges[0]!.aws!.headers },
    };
    tampered.headers['content-type'] = 'text/plain';
    expect(await sigv4Problem(tampered, credentials, { region: 'us-east-1' })).toBe(
      'bad signature',
    );
  });

  it('takes the credentials of the default chain (the environment here)', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: 'AKIAENVEXAMPLE000001',
      AWS_SECRET_ACCESS_KEY: 'env-secret-access-key-example',
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    try {
      const problems = acceptSignedBy({
        accessKeyId: 'AKIAENVEXAMPLE000001',
        secretAccessKey: 'env-secret-access-key-example',
      });
      await create({ method: 'aws' });
      expect(problems).toEqual([undefined]);
    } finally {
      process.env = saved;
    }
  });
});
