/**
 * Kubernetes identities against a stand-in api server over real HTTPS with its own CA: the
 * TokenReview with the reviewer token or the caller's own, the allowed namespaces and service
 * accounts, and the api server's refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityRejectedError, UpstreamUnavailableError } from '@svc/domain';
import { startKubernetesApi, type KubernetesApi } from '@svc/testkit/identity';
import { binding, deadUrl, verifyToken } from './support.ts';

let api: KubernetesApi;
let reviewer: string;
beforeAll(async () => {
  api = await startKubernetesApi();
  reviewer = api.issueReviewerToken();
});
afterAll(() => api.close());

const k8s = (settings: Record<string, unknown> = {}) =>
  binding('kubernetes', {
    apiServer: api.url,
    caCert: api.caCert!,
    namespaces: ['payments'],
    serviceAccounts: ['checkout'],
    ...settings,
  });

async function check(
  token: string,
  settings: Record<string, unknown> = {},
  reviewerToken: string | null = reviewer,
) {
  try {
    await verifyToken(k8s(settings), token, reviewerToken);
    return 'ok';
  } catch (error) {
    if (error instanceof IdentityRejectedError) return error.message;
    throw error;
  }
}

describe('kubernetes', () => {
  it('accepts a service account of the allowed lists, reviewed with the reviewer token', async () => {
    const token = api.issueToken({ namespace: 'payments', serviceAccount: 'checkout' });
    await expect(verifyToken(k8s(), token, reviewer)).resolves.toStrictEqual({
      subject: 'system:serviceaccount:payments:checkout',
    });
    expect(api.reviews.at(-1)).toStrictEqual({ bearer: reviewer, token, audiences: undefined });
  });

  it('lets the caller’s token review itself when the identity has no reviewer token', async () => {
    const delegated = api.issueToken({
      namespace: 'payments',
      serviceAccount: 'checkout',
      canReview: true,
    });
    expect(await check(delegated, {}, null)).toBe('ok');
    expect(api.reviews.at(-1)?.bearer).toBe(delegated);
    const plain = api.issueToken({ namespace: 'payments', serviceAccount: 'checkout' });
    expect(await check(plain, {}, null)).toMatch(
      /^upstream_rejected: the api server refused the caller's token as reviewer \(403\)/,
    );
  });

  it('asks for the identity’s audiences and refuses a token without them', async () => {
    const token = api.issueToken({
      namespace: 'payments',
      serviceAccount: 'checkout',
      audiences: ['svc'],
    });
    expect(await check(token, { audiences: ['svc'] })).toBe('ok');
    expect(api.reviews.at(-1)?.audiences).toStrictEqual(['svc']);
    expect(await check(token, { audiences: ['other'] })).toMatch(
      /^upstream_rejected: TokenReview: the token is not authenticated/,
    );
  });

  it('names namespaces and service accounts that are not allowed', async () => {
    expect(
      await check(api.issueToken({ namespace: 'kube-system', serviceAccount: 'checkout' })),
    ).toBe('not_allowed: namespace kube-system is not allowed');
    expect(await check(api.issueToken({ namespace: 'payments', serviceAccount: 'default' }))).toBe(
      'not_allowed: service account default is not allowed',
    );
  });

  it('passes the api server’s "not authenticated" on for unknown and revoked tokens', async () => {
    expect(await check('k8s.forged')).toMatch(/^upstream_rejected: /);
    const token = api.issueToken({ namespace: 'payments', serviceAccount: 'checkout' });
    api.revoke(token);
    expect(await check(token)).toMatch(/^upstream_rejected: /);
  });

  it('refuses the api server’s refusal of a bad reviewer token', async () => {
    const token = api.issueToken({ namespace: 'payments', serviceAccount: 'checkout' });
    expect(await check(token, {}, 'k8s.not-a-reviewer')).toMatch(
      /^upstream_rejected: the api server refused the reviewer token \(401\)/,
    );
  });

  it('trusts only the given CA: without it the self-signed api server is out of reach (502)', async () => {
    const token = api.issueToken({ namespace: 'payments', serviceAccount: 'checkout' });
    await expect(verifyToken(k8s({ caCert: null }), token, reviewer)).rejects.toBeInstanceOf(
      UpstreamUnavailableError,
    );
    const other = await startKubernetesApi();
    try {
      await expect(
        verifyToken(k8s({ caCert: other.caCert }), token, reviewer),
      ).rejects.toBeInstanceOf(UpstreamUnavailableError);
    } finally {
      await other.close();
    }
  });

  it('is a 502 when the api server cannot be reached', async () => {
    const token = api.issueToken({ namespace: 'payments', serviceAccount: 'checkout' });
    await expect(
      verifyToken(k8s({ apiServer: await deadUrl(), caCert: null }), token, reviewer),
    ).rejects.toThrow(/^TokenReview: ECONNREFUSED/);
  });
});
