/**
 * Workload identity token sources, each against a real socket: the token files of Kubernetes
 * and OIDC, an OIDC callback, and the testkit's stand-ins for the GCP metadata server, the
 * Azure instance metadata service and AWS STS — the signed `GetCallerIdentity` (from given and
 * from default-chain credentials) is forwarded by the exchange stand-in to the STS stand-in,
 * which recomputes the SigV4 signature with `@smithy/signature-v4`, as the api does.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { httpCall, tempDir } from '@svc/testkit';
import {
  startAwsSts,
  startAzureImds,
  startGcpMetadata,
  startOidcIssuer,
  type AwsSts,
  type AzureImds,
  type GcpMetadata,
  type OidcIssuer,
} from '@svc/testkit/identity';
import {
  ServiceClient,
  ServiceInitError,
  type AwsCredentials,
  type WorkloadIdentity,
} from '../src/index.ts';
import { ExchangeService, type ExchangeBody } from './support/exchange-service.ts';
import { memoryLogger } from './support/fake-service.ts';

let service: ExchangeService;
const dir = tempDir('svc-identity-');
const clients: ServiceClient[] = [];
/** Every URL the client fetched (the metadata requests among them). */
const fetched: string[] = [];
const recordingFetch: typeof fetch = (input, init) => {
  fetched.push(String(input));
  return fetch(input, init);
};

beforeAll(async () => {
  service = await new ExchangeService().start();
  service.ttlSeconds = 600;
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  service.exchanges.length = 0;
  fetched.length = 0;
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
    fetch: recordingFetch,
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

/** A JWT's claims (the stand-ins sign them; the api checks the signature). */
function claimsOf(token: unknown): Record<string, unknown> {
  return JSON.parse(Buffer.from(String(token).split('.')[1]!, 'base64url').toString());
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
  let issuer: OidcIssuer;
  let gcp: GcpMetadata;
  let azureIssuer: OidcIssuer;
  let azure: AzureImds;
  beforeAll(async () => {
    issuer = await startOidcIssuer({ issuer: 'https://accounts.google.com' });
    gcp = await startGcpMetadata({
      issuer,
      email: 'checkout@acme.iam.gserviceaccount.com',
      projectId: 'acme',
    });
    azureIssuer = await startOidcIssuer({ issuer: 'https://sts.windows.net/tenant-1/' });
    azure = await startAzureImds({
      issuer: azureIssuer,
      tenantId: 'tenant-1',
      principalId: 'oid-1',
    });
  });
  afterAll(async () => {
    await Promise.all([gcp.close(), issuer.close(), azure.close(), azureIssuer.close()]);
  });

  it('gcp: the identity token for the audience, in full format', async () => {
    await create({ method: 'gcp', audience: 'https://svc.example/acme', metadataUrl: gcp.url });
    expect(gcp.requests).toEqual(['https://svc.example/acme']);
    const url = new URL(fetched.find((u) => u.includes('/computeMetadata/'))!);
    expect(url.pathname).toBe('/computeMetadata/v1/instance/service-accounts/default/identity');
    expect(url.searchParams.get('format')).toBe('full');
    expect(claimsOf(service.exchanges[0]!.token)).toMatchObject({
      iss: 'https://accounts.google.com',
      aud: 'https://svc.example/acme',
      email: 'checkout@acme.iam.gserviceaccount.com',
      google: { compute_engine: { project_id: 'acme' } },
    });
  });

  it('azure: the managed identity token for the audience (resource), optionally a user-assigned one', async () => {
    await create({ method: 'azure', audience: 'api://svc', metadataUrl: `${azure.url}/` });
    await create({
      method: 'azure',
      audience: 'api://svc',
      metadataUrl: azure.url,
      clientId: 'c-123',
    });
    expect(azure.requests).toEqual(['api://svc', 'api://svc']);
    const [system, user] = fetched
      .filter((url) => url.includes('/metadata/'))
      .map((u) => new URL(u));
    expect(system!.pathname).toBe('/metadata/identity/oauth2/token');
    expect(system!.searchParams.get('client_id')).toBeNull();
    expect(user!.searchParams.get('client_id')).toBe('c-123');
    expect(claimsOf(service.exchanges[0]!.token)).toMatchObject({
      iss: 'https://sts.windows.net/tenant-1/',
      aud: 'api://svc',
      oid: 'oid-1',
    });
  });

  it('a metadata server that refuses or is not there fails create() naming it', async () => {
    const refused = await createFails({ method: 'gcp', audience: 'x', metadataUrl: azure.url });
    expect(refused).toBe('identity: the GCP metadata server answered HTTP 400');
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
  const fromEnvironment: AwsCredentials = {
    accessKeyId: 'AKIAENVEXAMPLE000001',
    secretAccessKey: 'env-secret-access-key-example',
  };
  let sts: AwsSts;
  beforeAll(async () => {
    sts = await startAwsSts({
      principals: [credentials, fromEnvironment].map((c) => ({
        ...c,
        arn: 'arn:aws:sts::123456789012:assumed-role/checkout/i-0abc',
        account: '123456789012',
      })),
    });
  });
  afterAll(() => sts.close());

  /**
   * The exchange forwards the signed request to the STS stand-in, as the api does (to its
   * configured endpoint only), and accepts it when STS does — and when `mustSign` is signed.
   */
  function forwardToSts(mustSign: string[] = []) {
    service.verify = async ({ aws }: ExchangeBody) => {
      const headers = aws?.headers ?? {};
      const signed = /SignedHeaders=([^,]+)/.exec(headers.authorization ?? '')?.[1]?.split(';');
      if (!mustSign.every((name) => signed?.includes(name))) {
        return { ok: false, status: 401, code: 'unauthorized', detail: 'not_allowed' };
      }
      const port = Number(new URL(sts.url).port);
      const answer = await httpCall(port, 'POST', '/', {
        headers,
        rawBody: Buffer.from(String(aws?.body), 'base64'),
      });
      return answer.status === 200
        ? { ok: true }
        : { ok: false, status: 401, code: 'unauthorized', detail: 'upstream_rejected' };
    };
  }

  it('signs GetCallerIdentity with the given credentials; STS accepts the signature', async () => {
    forwardToSts();
    await create({ method: 'aws', credentials, stsEndpoint: sts.url });
    expect(sts.requests.at(-1)).toMatchObject({
      accessKeyId: credentials.accessKeyId,
      accepted: true,
    });
    const { aws, token } = service.exchanges[0]!;
    expect(token).toBeUndefined();
    expect(aws).toMatchObject({ method: 'POST', url: `${sts.url}/` });
    expect(Buffer.from(String(aws!.body), 'base64').toString()).toBe(
      'Action=GetCallerIdentity&Version=2011-06-15',
    );
    expect(aws!.headers).toMatchObject({ 'x-amz-security-token': 'session-token-example' });
  });

  it('signs X-Svc-Server-Id with it', async () => {
    forwardToSts(['host', 'x-svc-server-id']);
    await create({
      method: 'aws',
      credentials: async () => credentials,
      serverId: 'svc.example.com',
      stsEndpoint: sts.url,
    });
    expect(sts.requests.at(-1)).toMatchObject({ accepted: true });
    expect(sts.requests.at(-1)!.headers['x-svc-server-id']).toBe('svc.example.com');
  });

  it('STS refuses a signature by the wrong secret', async () => {
    forwardToSts();
    const reason = await createFails({
      method: 'aws',
      credentials: { ...credentials, secretAccessKey: 'another-secret' },
      stsEndpoint: sts.url,
    });
    expect(reason).toBe('identity exchange: HTTP 401 unauthorized: upstream_rejected');
    expect(sts.requests.at(-1)).toMatchObject({ accepted: false });
  });

  it('signs for the global endpoint and us-east-1 by default, for a regional one with its region', async () => {
    service.verify = () => ({ ok: true });
    await create({ method: 'aws', credentials });
    await create({
      method: 'aws',
      credentials,
      stsEndpoint: 'https://sts.eu-west-1.amazonaws.com',
    });
    const [global, regional] = service.exchanges.map((e) => e.aws!);
    expect(global!.url).toBe('https://sts.amazonaws.com/');
    expect(global!.headers!.host).toBe('sts.amazonaws.com');
    expect(global!.headers!.authorization).toContain('/us-east-1/sts/aws4_request');
    expect(regional!.headers!.authorization).toContain('/eu-west-1/sts/aws4_request');
  });

  it('takes the credentials of the default chain (the environment here)', async () => {
    const env = {
      AWS_ACCESS_KEY_ID: fromEnvironment.accessKeyId,
      AWS_SECRET_ACCESS_KEY: fromEnvironment.secretAccessKey,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_SESSION_TOKEN: undefined,
      AWS_PROFILE: undefined,
    };
    const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
    const put = (values: Record<string, string | undefined>) => {
      for (const [name, value] of Object.entries(values)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    };
    put(env);
    try {
      forwardToSts();
      await create({ method: 'aws', stsEndpoint: sts.url });
      expect(sts.requests.at(-1)).toMatchObject({
        accessKeyId: fromEnvironment.accessKeyId,
        accepted: true,
      });
    } finally {
      put(saved);
    }
  });
});
