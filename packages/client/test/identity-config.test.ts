/** A workload identity's settings: every mistake is a TypeError naming the field, before any request. */
import { describe, expect, it } from 'vitest';
import { ServiceClient, type ServiceConfig } from '../src/index.ts';
import { resolveConfig } from '../src/config.ts';
import { BASE_URL, SK } from './support/fake-service.ts';

const id = 'f3c1b7de-0000-4000-8000-000000000001';

describe('workload identity settings', () => {
  it.each([
    [
      'both apiKey and identity',
      { apiKey: SK, identity: { identityId: id, method: 'kubernetes' } },
      'apiKey and identity exclude each other',
    ],
    ['no identityId', { identity: { method: 'kubernetes' } }, 'identity.identityId must be'],
    [
      'identityId with a slash',
      { identity: { identityId: 'a/b', method: 'kubernetes' } },
      'identity.identityId must be',
    ],
    [
      'an unknown method',
      { identity: { identityId: id, method: 'ldap' } },
      'identity.method must be one of',
    ],
    [
      'oidc with neither file nor callback',
      { identity: { identityId: id, method: 'oidc' } },
      'either tokenFile or token',
    ],
    [
      'oidc with both',
      { identity: { identityId: id, method: 'oidc', tokenFile: '/t', token: () => 't' } },
      'either tokenFile or token',
    ],
    [
      'a token that is no function',
      { identity: { identityId: id, method: 'oidc', token: 'abc' } },
      'identity.token must be a function',
    ],
    [
      'gcp without audience',
      { identity: { identityId: id, method: 'gcp' } },
      'identity.audience is required',
    ],
    [
      'azure with an empty audience',
      { identity: { identityId: id, method: 'azure', audience: ' ' } },
      'identity.audience must be a non-empty string',
    ],
    [
      'a field of another method',
      { identity: { identityId: id, method: 'kubernetes', audience: 'x' } },
      'identity.audience does not apply to the kubernetes method',
    ],
    [
      'a metadata URL with a query',
      { identity: { identityId: id, method: 'gcp', audience: 'a', metadataUrl: 'http://m/?x=1' } },
      'identity.metadataUrl must be an http(s) URL',
    ],
    [
      'an STS endpoint with credentials',
      { identity: { identityId: id, method: 'aws', stsEndpoint: 'https://u:p@sts.amazonaws.com' } },
      'identity.stsEndpoint must be',
    ],
    [
      'malformed AWS credentials',
      { identity: { identityId: id, method: 'aws', credentials: { accessKeyId: 'A' } } },
      'identity.credentials must be',
    ],
    [
      'refreshAt of 1',
      { identity: { identityId: id, method: 'kubernetes', refreshAt: 1 } },
      'identity.refreshAt must be',
    ],
    [
      'a zero retry delay',
      { identity: { identityId: id, method: 'kubernetes', retry: { initialDelayMs: 0 } } },
      'identity.retry.initialDelayMs must be',
    ],
  ])('%s', async (_, settings, message) => {
    let requests = 0;
    const config = {
      baseUrl: BASE_URL,
      fetch: async () => {
        requests++;
        return new Response(null, { status: 500 });
      },
      ...settings,
    } as unknown as ServiceConfig;
    const error = await ServiceClient.create(config).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain(message);
    expect(requests).toBe(0);
  });

  it('fills in the defaults: refresh at 2/3 of the life, retries from 1 s to 30 s', () => {
    const resolved = resolveConfig({
      baseUrl: BASE_URL,
      identity: { identityId: id, method: 'kubernetes' },
    });
    expect(resolved.identity).toMatchObject({
      identityId: id,
      method: 'kubernetes',
      refreshAt: 2 / 3,
      retry: { initialDelayMs: 1_000, maxDelayMs: 30_000 },
    });
    expect(resolved.apiKey).toBe('');
  });

  it('still requires an API key when no identity is given', () => {
    expect(() => resolveConfig({ baseUrl: BASE_URL })).toThrow(/apiKey is not a valid/);
  });
});
