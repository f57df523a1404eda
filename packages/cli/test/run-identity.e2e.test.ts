/**
 * `svc run` with a workload identity instead of a key (the built dist/svc.mjs, a real process)
 * against the live console and api, with the identity stand-ins of `@svc/testkit/identity`: an
 * OIDC issuer and a Kubernetes api server answering TokenReviews, as the api's own identity
 * tests use them (the cloud methods: run-identity-clouds). The identities are made through the
 * management API.
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
import { liveService } from './support/live.ts';

const live = liveService();
const P = '/workspaces/ident/projects/web';
const dir = tempDir('svc-cli-identity-');
let platforms: IdentityPlatforms<'oidc' | 'kubernetes'>;
const ids: Record<string, string> = {};
/** svc's environment: the base URL, and no key from the environment of the test run. */
let base: Record<string, string | undefined> = {};

/** A node child that prints its environment as one JSON line. */
const SHOW = 'console.log(JSON.stringify(process.env))';

const identity = (method: string, block: Record<string, unknown>, ttl = 900) =>
  createIdentity(live.admin, P, method, block, { name: `${method} ${ttl}`, ttl_s: ttl });

/** A file holding `token`, as a platform mounts one. */
function tokenFile(name: string, token: string): string {
  const file = join(dir, name);
  writeFileSync(file, token, { mode: 0o600 });
  return file;
}

beforeAll(async () => {
  platforms = await startIdentityPlatforms({ oidc: {}, kubernetes: {} });
  const { oidc, kubernetes } = platforms;
  await live.admin('POST', '/workspaces', { slug: 'ident', name: 'Ident' });
  await live.admin('POST', '/workspaces/ident/projects', { slug: 'web', name: 'Web' });
  await live.admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
  await live.admin('PUT', `${P}/secrets/stripe.api_key`, { value: 'sk_live_ident_1' });
  ids.oidc = await identity('oidc', { issuer: oidc.issuer, audiences: ['svc'] });
  ids.kubernetes = await identity('kubernetes', {
    api_server: kubernetes.url,
    ca_cert: kubernetes.caCert,
    reviewer_token: kubernetes.issueReviewerToken(),
    namespaces: ['payments'],
    service_accounts: ['checkout'],
  });
  // Keys of 60 s, the shortest the api mints: with --identity-refresh-at 0.05, one every 3 s.
  ids.short = await identity('oidc', { issuer: oidc.issuer, audiences: ['svc'] }, 60);
  base = { SERVICE_BASE_URL: `${live.apiUrl}/ident`, SERVICE_API_KEY: undefined };
}, 60_000);

afterAll(() => platforms?.close());

/** `svc run`'s options for the oidc identity `id` with its token in `file`. */
const oidcOptions = (id: string, file: string) => [
  ...['--identity-method', 'oidc', '--identity-id', id],
  ...['--identity-token-file', file],
];

/** svc's environment for the kubernetes identity with the projected token in `file`. */
const kubernetesEnv = (file: string) => ({
  ...base,
  SERVICE_IDENTITY_METHOD: 'kubernetes',
  SERVICE_IDENTITY_ID: ids.kubernetes,
  SERVICE_IDENTITY_TOKEN_FILE: file,
});

/** The variables whose value looks like an API key (`svs_…`, `svp_…`). */
const keysIn = (env: Record<string, string>) =>
  Object.entries(env).filter(([, value]) => /^sv[sp]_/.test(value));

describe('svc run with a workload identity', () => {
  it('oidc with a token file: the command gets the values, never the minted key', async () => {
    const file = tokenFile(
      'oidc-token',
      await platforms.oidc.sign({ sub: 'repo:acme/web', aud: 'svc' }),
    );
    const result = await live.svc(
      ['run', ...oidcOptions(ids.oidc!, file), '--', process.execPath, '-e', SHOW],
      { env: base },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const env = JSON.parse(result.stdout.trim()) as Record<string, string>;
    expect(env.UI_THEME).toBe('dark');
    expect(env.STRIPE_API_KEY).toBe('sk_live_ident_1');
    expect(env.SERVICE_API_KEY).toBeUndefined();
    expect(keysIn(env)).toEqual([]);
  });

  it('oidc with the token in a variable, as GitLab CI gives one', async () => {
    const token = await platforms.oidc.sign({ sub: 'repo:acme/web', aud: 'svc' });
    const result = await live.svc(
      [
        'run',
        '--identity-method',
        'oidc',
        '--identity-id',
        ids.oidc!,
        '--',
        'printenv',
        'UI_THEME',
      ],
      { env: { ...base, SERVICE_IDENTITY_TOKEN_ENV: 'SVC_ID_TOKEN', SVC_ID_TOKEN: token } },
    );
    expect(result).toMatchObject({ code: 0, stdout: 'dark\n', stderr: '' });
  });

  it('kubernetes from the SERVICE_IDENTITY_* variables, with the projected token file', async () => {
    const file = tokenFile(
      'k8s-token',
      platforms.kubernetes.issueToken({ namespace: 'payments', serviceAccount: 'checkout' }),
    );
    const result = await live.svc(['run', '--', 'printenv', 'UI_THEME', 'STRIPE_API_KEY'], {
      env: kubernetesEnv(file),
    });
    expect(result).toMatchObject({ code: 0, stdout: 'dark\nsk_live_ident_1\n', stderr: '' });
  });

  it('an identity the api refuses: the failed check on stderr, exit 1, nothing runs', async () => {
    const wrongAudience = tokenFile(
      'wrong-audience',
      await platforms.oidc.sign({ sub: 'repo:acme/web', aud: 'another' }),
    );
    const refused = await live.svc(
      ['run', ...oidcOptions(ids.oidc!, wrongAudience), '--', 'echo', 'ran'],
      { env: base },
    );
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^svc: identity exchange: HTTP 401 unauthorized: .*audience/);

    // A service account the identity does not allow is refused the same way.
    const otherAccount = tokenFile(
      'other-account',
      platforms.kubernetes.issueToken({ namespace: 'payments', serviceAccount: 'intruder' }),
    );
    const notAllowed = await live.svc(['run', '--', 'echo', 'ran'], {
      env: kubernetesEnv(otherAccount),
    });
    expect(notAllowed).toMatchObject({ code: 1, stdout: '' });
    expect(notAllowed.stderr).toContain('identity exchange: HTTP 401 unauthorized');
  });
});

describe('svc run --watch with a workload identity', () => {
  it('keeps the stream across key refreshes: no restart for a new key, a restart for a change', async () => {
    const file = tokenFile(
      'short-token',
      await platforms.oidc.sign({ sub: 'repo:acme/web', aud: 'svc' }),
    );
    const liveKeys = async () => {
      const listed = (await live.admin('GET', `${P}/identities`)).json();
      return listed.find((i: { id: string }) => i.id === ids.short).live_keys as number;
    };
    const before = await liveKeys();
    const svc = live.start(
      [
        ...['run', '--watch', ...oidcOptions(ids.short!, file)],
        ...['--identity-refresh-at', '0.05'],
        '--',
        ...['sh', '-c', 'echo "start $UI_THEME"; exec sleep 120'],
      ],
      { env: base },
    );
    await waitFor(() => svc.stdout().includes('start dark'), 15_000);
    // Two refreshes (a key every 3 s): the stream has reconnected under a new key at least once.
    await waitFor(async () => (await liveKeys()) >= before + 3, 30_000);
    expect(svc.stdout()).toBe('start dark\n');

    await live.admin('PUT', `${P}/configs/ui.theme`, { value: 'light', is_public: true });
    await waitFor(() => svc.stdout().includes('start light'), 15_000);
    expect(svc.stderr()).toBe('svc: UI_THEME changed: restarting sh\n');
    svc.child.kill('SIGTERM');
    expect((await svc.exited).code).toBe(143);
    await live.admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
  }, 90_000);
});
