/**
 * OIDC identities against a stand-in issuer over real HTTP: RS256 and ES256, discovery, JWKS
 * caching and refetch on an unknown kid (key rotation), and each failed check named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityRejectedError, UpstreamUnavailableError } from '@svc/domain';
import { startOidcIssuer, startLoopbackServer, type OidcIssuer } from '@svc/testkit/identity';
import { binding, deadUrl, verifyToken } from './support.ts';

let issuer: OidcIssuer;
beforeAll(async () => {
  issuer = await startOidcIssuer();
});
afterAll(() => issuer.close());

const claims = {
  sub: 'repo:acme/web:ref:refs/heads/main',
  aud: 'svc',
  repository_owner: 'acme',
  run_attempt: 2,
};
const oidc = (settings: Record<string, unknown> = {}) =>
  binding('oidc', {
    issuer: issuer.issuer,
    jwksUrl: issuer.jwksUrl,
    audiences: ['svc'],
    ...settings,
  });

async function check(token: Promise<string>, settings: Record<string, unknown> = {}) {
  try {
    await verifyToken(oidc(settings), await token);
    return 'ok';
  } catch (error) {
    if (error instanceof IdentityRejectedError) return error.message;
    throw error;
  }
}

describe('oidc', () => {
  it.each(['RS256', 'ES256'] as const)(
    'accepts a valid %s token and names its subject',
    async (alg) => {
      const token = await issuer.sign(claims, { alg });
      await expect(verifyToken(oidc(), token)).resolves.toStrictEqual({ subject: claims.sub });
    },
  );

  it('finds the keys by OIDC discovery when no jwks_url is set, and keeps both documents', async () => {
    const fresh = await startOidcIssuer();
    try {
      const b = binding('oidc', { issuer: fresh.issuer, audiences: ['svc'] });
      for (let i = 0; i < 3; i++) {
        await expect(verifyToken(b, await fresh.sign(claims))).resolves.toMatchObject({
          subject: claims.sub,
        });
      }
      expect(fresh.fetches).toStrictEqual({ discovery: 1, jwks: 1 });
    } finally {
      await fresh.close();
    }
  });

  it('names the failed check: issuer, audience, expiry, not-before, issued-at', async () => {
    expect(await check(issuer.sign(claims, { issuer: 'https://evil.example' }))).toMatch(
      /^issuer: /,
    );
    expect(await check(issuer.sign({ ...claims, aud: 'other' }))).toMatch(/^audience: /);
    expect(await check(issuer.sign(claims, { expiresInS: -61 }))).toMatch(/^expired: .*exp/);
    expect(await check(issuer.sign(claims, { notBeforeOffsetS: 120 }))).toMatch(/^expired: .*nbf/);
    expect(await check(issuer.sign(claims, { issuedAtOffsetS: 120 }))).toMatch(/^expired: .*iat/);
  });

  it('allows 60 s of clock skew on exp, nbf and iat', async () => {
    expect(await check(issuer.sign(claims, { expiresInS: -30 }))).toBe('ok');
    expect(await check(issuer.sign(claims, { notBeforeOffsetS: 30 }))).toBe('ok');
    expect(await check(issuer.sign(claims, { issuedAtOffsetS: 30 }))).toBe('ok');
  });

  it('refuses a signature by another key under a published kid', async () => {
    expect(await check(issuer.sign(claims, { key: 'impostor' }))).toMatch(/^signature: /);
    expect(await check(issuer.sign(claims, { key: 'impostor', alg: 'ES256' }))).toMatch(
      /^signature: /,
    );
  });

  it('refetches the keys for an unknown kid, and refuses the token when the kid is still unknown', async () => {
    const before = issuer.fetches.jwks;
    expect(await check(issuer.sign(claims, { key: 'unpublished' }))).toMatch(
      /^signature: no key .*kid/,
    );
    expect(issuer.fetches.jwks).toBe(before + 1);
  });

  it('follows a key rotation: a token under the new kid verifies after one refetch', async () => {
    await verifyToken(oidc(), await issuer.sign(claims));
    const before = issuer.fetches.jwks;
    await issuer.rotate({ retire: true });
    expect(await check(issuer.sign(claims, { alg: 'ES256' }))).toBe('ok');
    expect(issuer.fetches.jwks).toBe(before + 1);
    expect(await check(issuer.sign(claims))).toBe('ok');
    expect(issuer.fetches.jwks).toBe(before + 1);
  });

  it('refuses what is not an RS256/ES256 JWT', async () => {
    expect(await check(Promise.resolve('not-a-jwt'))).toMatch(/^signature: /);
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    expect(await check(Promise.resolve(none))).toMatch(/^signature: /);
  });

  it('matches the subject and claims against their patterns', async () => {
    const token = issuer.sign(claims);
    expect(await check(token, { subject: 'repo:acme/*:ref:refs/heads/main' })).toBe('ok');
    expect(await check(token, { subject: 'repo:acme/*:ref:refs/heads/release' })).toMatch(
      /^subject: /,
    );
    expect(await check(token, { claims: { repository_owner: 'ac*', run_attempt: '2' } })).toBe(
      'ok',
    );
    expect(await check(token, { claims: { repository_owner: 'other' } })).toMatch(
      /^not_allowed: claim 'repository_owner'/,
    );
    expect(await check(token, { claims: { environment: '*' } })).toMatch(
      /^not_allowed: claim 'environment'/,
    );
  });

  it('never puts the token in the error', async () => {
    const token = await issuer.sign(claims, { issuer: 'https://evil.example' });
    const message = await check(Promise.resolve(token));
    expect(message).not.toContain(token);
    expect(message).not.toContain(token.split('.')[1]!);
  });

  it('is a 502 when the JWKS or the discovery document cannot be fetched', async () => {
    const dead = await deadUrl();
    const token = await issuer.sign(claims);
    await expect(
      verifyToken(
        binding('oidc', { issuer: issuer.issuer, jwksUrl: `${dead}/jwks`, audiences: ['svc'] }),
        token,
      ),
    ).rejects.toBeInstanceOf(UpstreamUnavailableError);
    await expect(
      verifyToken(binding('oidc', { issuer: dead, audiences: ['svc'] }), token),
    ).rejects.toThrow(/^OIDC discovery .*ECONNREFUSED/);
  });

  it('is a 502 within the deadline when the JWKS never answers', async () => {
    const silent = await startLoopbackServer(() => new Promise(() => {}));
    try {
      const started = Date.now();
      await expect(
        verifyToken(
          binding('oidc', {
            issuer: issuer.issuer,
            jwksUrl: `${silent.url}/jwks`,
            audiences: ['svc'],
          }),
          await issuer.sign(claims),
        ),
      ).rejects.toBeInstanceOf(UpstreamUnavailableError);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await silent.close();
    }
  });
});
