/**
 * AWS identities against a stand-in STS that recomputes every SigV4 signature with the AWS
 * SDK's signer: requests signed here with test credentials, the checks made before any call
 * (endpoint, host, action, server id), STS's refusals, and the account and ARN rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IdentityRejectedError,
  UpstreamUnavailableError,
  ValidationError,
  type SignedAwsRequest,
} from '@svc/domain';
import { signGetCallerIdentity, startAwsSts, type AwsSts } from '@svc/testkit/identity';
import { principalArn } from '../src/index.ts';
import { binding, deadUrl, verifyCredential } from './support.ts';

const role = {
  accessKeyId: 'ASIATESTCHECKOUT0001',
  secretAccessKey: 'test-secret-checkout',
  sessionToken: 'test-session-token',
  arn: 'arn:aws:sts::123456789012:assumed-role/checkout-api/i-0abc123',
  account: '123456789012',
};
const user = {
  accessKeyId: 'AKIATESTDEPLOYER0001',
  secretAccessKey: 'test-secret-deployer',
  arn: 'arn:aws:iam::210987654321:user/deployer',
  account: '210987654321',
};

let sts: AwsSts;
beforeAll(async () => {
  sts = await startAwsSts({ principals: [role, user] });
});
afterAll(() => sts.close());

/** A GetCallerIdentity request signed as the client does: SigV4 over host (and the server id). */
async function signed(
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
  options: { endpoint?: string; serverId?: string; signServerId?: boolean } = {},
): Promise<SignedAwsRequest> {
  const request = await signGetCallerIdentity(credentials, {
    endpoint: options.endpoint ?? `${sts.url}/`,
    ...(options.serverId !== undefined && options.signServerId !== false
      ? { serverId: options.serverId }
      : {}),
  });
  // Added after signing: present, but not covered by the signature.
  if (options.serverId !== undefined && options.signServerId === false) {
    request.headers['x-svc-server-id'] = options.serverId;
  }
  return { ...request, body: Buffer.from(request.body, 'base64').toString('utf8') };
}

const aws = (settings: Record<string, unknown> = {}) =>
  binding('aws', {
    accounts: ['123456789012', '210987654321'],
    stsEndpoint: `${sts.url}/`,
    ...settings,
  });

async function check(
  request: SignedAwsRequest | Promise<SignedAwsRequest>,
  settings: Record<string, unknown> = {},
) {
  try {
    await verifyCredential(aws(settings), { type: 'aws', request: await request });
    return 'ok';
  } catch (error) {
    if (error instanceof IdentityRejectedError) return error.message;
    if (error instanceof ValidationError) return `400 ${error.message}`;
    throw error;
  }
}

describe('aws', () => {
  it('accepts a request STS verifies, naming an assumed role by its role ARN', async () => {
    await expect(
      verifyCredential(aws(), { type: 'aws', request: await signed(role) }),
    ).resolves.toStrictEqual({
      subject: 'arn:aws:iam::123456789012:role/checkout-api',
    });
    await expect(
      verifyCredential(aws(), { type: 'aws', request: await signed(user) }),
    ).resolves.toStrictEqual({
      subject: 'arn:aws:iam::210987654321:user/deployer',
    });
    expect(sts.requests.at(-1)?.accepted).toBe(true);
  });

  it('passes STS’s refusal of a wrong signature or an unknown key on as upstream_rejected', async () => {
    expect(await check(signed({ ...role, secretAccessKey: 'wrong' }))).toBe(
      'upstream_rejected: STS refused the signed request (SignatureDoesNotMatch)',
    );
    expect(await check(signed({ ...role, accessKeyId: 'ASIAUNKNOWN000000001' }))).toBe(
      'upstream_rejected: STS refused the signed request (InvalidClientTokenId)',
    );
    const tampered = await signed(role);
    tampered.headers['content-type'] = 'application/x-www-form-urlencoded';
    expect(await check(tampered)).toMatch(/^upstream_rejected: .*SignatureDoesNotMatch/);
  });

  it('allows only the listed accounts and ARN patterns, roles matched by their role ARN', async () => {
    expect(await check(signed(user), { accounts: ['123456789012'] })).toBe(
      'not_allowed: account 210987654321 is not allowed',
    );
    expect(
      await check(signed(role), { principalArns: ['arn:aws:iam::123456789012:role/checkout-*'] }),
    ).toBe('ok');
    expect(
      await check(signed(role), { principalArns: ['arn:aws:iam::123456789012:role/payments-*'] }),
    ).toBe('not_allowed: principal arn:aws:iam::123456789012:role/checkout-api is not allowed');
    expect(
      await check(signed(role), { principalArns: ['arn:aws:sts::123456789012:assumed-role/*'] }),
    ).toMatch(/^not_allowed/);
  });

  it('wants X-Svc-Server-Id, signed, with the identity’s value when it has a server id', async () => {
    const serverId = 'svc.example.com';
    expect(await check(signed(role, { serverId }), { serverId })).toBe('ok');
    expect(await check(signed(role), { serverId })).toMatch(/^server_id: /);
    expect(await check(signed(role, { serverId, signServerId: false }), { serverId })).toMatch(
      /^server_id: /,
    );
    expect(await check(signed(role, { serverId: 'other.example.com' }), { serverId })).toMatch(
      /^server_id: /,
    );
  });

  it('refuses a request naming another endpoint or host before any network call', async () => {
    const before = sts.requests.length;
    const elsewhere = await signed(role, { endpoint: 'http://169.254.169.254/' });
    expect(await check(elsewhere)).toMatch(/^400 aws.url: must be this identity's STS endpoint/);
    const otherPath = await signed(role, { endpoint: `${sts.url}/admin` });
    expect(await check(otherPath)).toMatch(/^400 aws.url: /);
    const hostHeader = await signed(role);
    hostHeader.url = `${sts.url}/`;
    hostHeader.headers.Host = 'metadata.internal';
    expect(await check(hostHeader)).toMatch(
      /^400 aws.headers: names host twice|^400 aws.headers.host/,
    );
    const onlyHost = await signed(role);
    delete onlyHost.headers.host;
    onlyHost.headers.host = 'metadata.internal';
    expect(await check(onlyHost)).toMatch(/^400 aws.headers.host: /);
    expect(sts.requests.length).toBe(before);
  });

  it('forwards only GetCallerIdentity, SigV4-signed over the host', async () => {
    const before = sts.requests.length;
    const other = await signed(role);
    other.body = 'Action=AssumeRole&Version=2011-06-15&RoleArn=x';
    expect(await check(other)).toMatch(/^400 aws.body: /);
    const unsigned = await signed(role);
    delete unsigned.headers.authorization;
    expect(await check(unsigned)).toMatch(/^signature: /);
    expect(await check({ ...(await signed(role)), method: 'GET' })).toBe(
      '400 aws.method: must be POST',
    );
    expect(sts.requests.length).toBe(before);
  });

  it('is a 502 when STS cannot be reached', async () => {
    const dead = `${await deadUrl()}/`;
    await expect(
      verifyCredential(aws({ stsEndpoint: dead }), {
        type: 'aws',
        request: await signed(role, { endpoint: dead }),
      }),
    ).rejects.toBeInstanceOf(UpstreamUnavailableError);
  });
});

describe('principalArn', () => {
  it('names an assumed role by its role, other ARNs as they are', () => {
    expect(principalArn('arn:aws-us-gov:sts::123456789012:assumed-role/app/session')).toBe(
      'arn:aws-us-gov:iam::123456789012:role/app',
    );
    expect(principalArn('arn:aws:iam::123456789012:role/app')).toBe(
      'arn:aws:iam::123456789012:role/app',
    );
  });
});
