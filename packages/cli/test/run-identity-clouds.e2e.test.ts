/**
 * `svc run` with the cloud methods' identities (the built dist/svc.mjs, a real process) against
 * the live api and the stand-ins of `@svc/testkit/identity`: aws signs with the AWS SDK's default
 * credential chain (here the environment) and the STS stand-in checks the signature; gcp asks
 * the metadata stand-in for a token of the audience (azure's settings map the same way: the
 * client's own tests cover its source). Every setting comes from a SERVICE_IDENTITY_* variable,
 * as in a container's spec.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createIdentities,
  startIdentityPlatforms,
  type IdentityPlatforms,
} from '@svc/testkit/identity';
import { liveService } from './support/live.ts';

const live = liveService();
const P = '/workspaces/clouds/projects/web';
let platforms: IdentityPlatforms<'aws' | 'gcp'>;
let ids: Record<string, string> = {};

/** Runs `printenv UI_THEME` under svc with the identity `settings` (SERVICE_IDENTITY_…). */
function printTheme(settings: Record<string, string>, more: Record<string, string> = {}) {
  const env = Object.fromEntries(
    Object.entries(settings).map(([name, value]) => [`SERVICE_IDENTITY_${name}`, value]),
  );
  return live.svc(['run', '--', 'printenv', 'UI_THEME'], {
    env: { SERVICE_BASE_URL: `${live.apiUrl}/clouds`, SERVICE_API_KEY: undefined, ...env, ...more },
  });
}

beforeAll(async () => {
  platforms = await startIdentityPlatforms({ aws: {}, gcp: {} });
  const { aws, gcp } = platforms;
  await live.admin('POST', '/workspaces', { slug: 'clouds', name: 'Clouds' });
  await live.admin('POST', '/workspaces/clouds/projects', { slug: 'web', name: 'Web' });
  await live.admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
  ids = await createIdentities(live.admin, P, {
    aws: { accounts: [aws.principal.account], sts_endpoint: `${aws.url}/`, server_id: 'svc.test' },
    gcp: {
      audience: 'https://svc.test',
      service_accounts: [gcp.email],
      jwks_url: gcp.issuer.jwksUrl,
    },
  });
}, 60_000);

afterAll(() => platforms?.close());

describe('svc run with a cloud identity', () => {
  it("aws: the SDK's credential chain (the environment) signs, in the bundled svc too", async () => {
    const { principal, url, requests } = platforms.aws;
    const result = await printTheme(
      { METHOD: 'aws', ID: ids.aws!, STS_ENDPOINT: `${url}/`, SERVER_ID: 'svc.test' },
      {
        AWS_ACCESS_KEY_ID: principal.accessKeyId,
        AWS_SECRET_ACCESS_KEY: principal.secretAccessKey,
        AWS_SESSION_TOKEN: principal.sessionToken!,
      },
    );
    expect(result).toMatchObject({ code: 0, stdout: 'dark\n', stderr: '' });
    expect(requests.at(-1)).toMatchObject({ accessKeyId: principal.accessKeyId, accepted: true });
    expect(requests.at(-1)!.headers['x-svc-server-id']).toBe('svc.test');
  });

  it('gcp: the metadata server’s token for the audience; another audience is refused', async () => {
    const gcp = { METHOD: 'gcp', ID: ids.gcp!, METADATA_URL: platforms.gcp.metadata.url };
    const result = await printTheme({ ...gcp, AUDIENCE: 'https://svc.test' });
    expect(result).toMatchObject({ code: 0, stdout: 'dark\n', stderr: '' });
    const refused = await printTheme({ ...gcp, AUDIENCE: 'https://elsewhere.test' });
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^svc: identity exchange: HTTP 401 unauthorized: .*audience/);
  });
});
