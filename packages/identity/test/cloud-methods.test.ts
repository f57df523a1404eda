/**
 * GCP and Azure identities with tokens as the platforms' metadata services hand them out
 * (stand-ins over real HTTP, signed by stand-in issuers that name Google and the tenant).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityRejectedError } from '@svc/domain';
import { startIdentityPlatforms, type IdentityPlatforms } from '@svc/testkit/identity';
import { binding, verifyToken } from './support.ts';

const tenantId = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const principalId = '0c4e1b5a-1234-4abc-9def-0123456789ab';
const email = 'checkout@shop-prod.iam.gserviceaccount.com';

let platforms: IdentityPlatforms<'gcp' | 'azure'>;
beforeAll(async () => {
  platforms = await startIdentityPlatforms({
    gcp: { email, projectId: 'shop-prod' },
    azure: { tenantId, principalId },
  });
});
afterAll(() => platforms.close());

const gcpToken = (audience: string, full = true) =>
  platforms.gcp.metadata.identityToken(audience, { full });
const azureToken = (resource: string) => platforms.azure.imds.accessToken(resource);

async function check(run: Promise<unknown>): Promise<string> {
  try {
    await run;
    return 'ok';
  } catch (error) {
    if (error instanceof IdentityRejectedError) return error.message;
    throw error;
  }
}

describe('gcp', () => {
  const gcp = (settings: Record<string, unknown> = {}) =>
    binding('gcp', {
      audience: 'https://svc.example.com',
      serviceAccounts: [email],
      jwksUrl: platforms.gcp.issuer.jwksUrl,
      ...settings,
    });

  it('accepts the metadata server’s identity token of an allowed service account', async () => {
    await expect(
      verifyToken(gcp(), await gcpToken('https://svc.example.com')),
    ).resolves.toStrictEqual({ subject: email });
  });

  it('checks the audience, the service account and the project', async () => {
    const token = await gcpToken('https://svc.example.com');
    expect(await check(verifyToken(gcp({ audience: 'https://other.example.com' }), token))).toMatch(
      /^audience: /,
    );
    expect(
      await check(
        verifyToken(gcp({ serviceAccounts: ['other@shop-prod.iam.gserviceaccount.com'] }), token),
      ),
    ).toBe(`not_allowed: service account ${email} is not allowed`);
    expect(await check(verifyToken(gcp({ projects: ['shop-prod'] }), token))).toBe('ok');
    expect(await check(verifyToken(gcp({ projects: ['shop-dev'] }), token))).toBe(
      'not_allowed: project shop-prod is not allowed',
    );
    // Without format=full, the project comes from the service account's email.
    expect(
      await check(
        verifyToken(
          gcp({ projects: ['shop-prod'] }),
          await gcpToken('https://svc.example.com', false),
        ),
      ),
    ).toBe('ok');
  });

  it('wants Google as the issuer', async () => {
    const token = await platforms.gcp.issuer.sign(
      { aud: 'https://svc.example.com', email, email_verified: true, sub: '1' },
      { issuer: 'https://evil.example' },
    );
    expect(await check(verifyToken(gcp(), token))).toMatch(/^issuer: /);
  });
});

describe('azure', () => {
  const azure = (settings: Record<string, unknown> = {}) =>
    binding('azure', {
      tenantId,
      audience: 'api://svc',
      principalIds: [principalId],
      jwksUrl: platforms.azure.issuer.jwksUrl,
      ...settings,
    });

  it('accepts the instance metadata service’s token of an allowed managed identity', async () => {
    await expect(verifyToken(azure(), await azureToken('api://svc'))).resolves.toStrictEqual({
      subject: principalId,
    });
  });

  it('checks the audience, the tenant and the object id', async () => {
    const token = await azureToken('api://svc');
    expect(await check(verifyToken(azure({ audience: 'api://other' }), token))).toMatch(
      /^audience: /,
    );
    expect(
      await check(
        verifyToken(azure({ principalIds: ['9c4e1b5a-1234-4abc-9def-0123456789ab'] }), token),
      ),
    ).toBe(`not_allowed: principal ${principalId} is not allowed`);
    const otherTenant = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
    expect(await check(verifyToken(azure({ tenantId: otherTenant }), token))).toMatch(/^issuer: /);
    const v2 = await platforms.azure.issuer.sign(
      { aud: 'api://svc', oid: principalId, tid: tenantId },
      { issuer: `https://login.microsoftonline.com/${tenantId}/v2.0` },
    );
    expect(await check(verifyToken(azure(), v2))).toBe('ok');
  });
});
