/**
 * `svc run`'s usage errors about credentials (the built dist/svc.mjs, a real process): an API key
 * and a workload identity together, neither, or an identity that is incomplete are refused with
 * a message naming the options or variables given, exit 1, before any request or command.
 */
import { describe, expect, it } from 'vitest';
import { liveService } from './support/live.ts';

const live = liveService();

/** No key or identity from the test run's environment; a base URL nothing listens on. */
const CLEAN = Object.fromEntries(
  [
    'SERVICE_API_KEY',
    ...Object.keys(process.env).filter((name) => name.startsWith('SERVICE_IDENTITY_')),
  ].map((name) => [name, undefined]),
);

async function refused(args: string[], env: Record<string, string> = {}): Promise<string> {
  const result = await live.svc(['run', ...args, '--', 'echo', 'ran'], {
    env: { ...CLEAN, SERVICE_BASE_URL: 'http://127.0.0.1:9/nowhere', ...env },
  });
  expect(result).toMatchObject({ code: 1, stdout: '' });
  return result.stderr;
}

describe('svc run: a key or a workload identity, exactly one', () => {
  it('both: an error naming where each came from', async () => {
    expect(await refused(['--api-key', 'svs_x', '--identity-id', 'abc'])).toBe(
      'svc: an API key (--api-key) and a workload identity (--identity-id) exclude each other: give one\n',
    );
    const fromEnv = await refused(['--identity-method', 'kubernetes'], {
      SERVICE_API_KEY: 'svs_x',
      SERVICE_IDENTITY_ID: 'abc',
    });
    expect(fromEnv).toContain('an API key (SERVICE_API_KEY) and a workload identity');
    expect(fromEnv).toContain('(SERVICE_IDENTITY_ID, --identity-method)');
  });

  it('neither: an error naming both ways', async () => {
    const stderr = await refused([]);
    expect(stderr).toContain('no API key or workload identity');
    expect(stderr).toContain('--api-key (SERVICE_API_KEY)');
    expect(stderr).toContain('--identity-id and --identity-method');
  });

  it('an incomplete identity: the missing setting, or the one that does not fit the method', async () => {
    expect(await refused(['--identity-method', 'kubernetes'])).toBe(
      'svc: incomplete workload identity: --identity-id (SERVICE_IDENTITY_ID) missing\n',
    );
    expect(await refused([], { SERVICE_IDENTITY_TOKEN_FILE: '/tmp/token' })).toContain(
      '--identity-id (SERVICE_IDENTITY_ID) and --identity-method (SERVICE_IDENTITY_METHOD) missing',
    );
    expect(await refused(['--identity-method', 'oidc', '--identity-id', 'abc'])).toContain(
      'the oidc method takes one token source: --identity-token-file',
    );
    expect(await refused(['--identity-method', 'gcp', '--identity-id', 'abc'])).toContain(
      'svc: --identity-audience (SERVICE_IDENTITY_AUDIENCE) is required by the gcp method',
    );
    expect(
      await refused(['--identity-method', 'kubernetes', '--identity-id', 'abc'], {
        SERVICE_IDENTITY_AUDIENCE: 'svc',
      }),
    ).toBe('svc: SERVICE_IDENTITY_AUDIENCE does not apply to the kubernetes method\n');
    expect(
      await refused(['--identity-id', 'abc', '--identity-method', 'oidc'], {
        SERVICE_IDENTITY_TOKEN_ENV: 'SVC_NO_SUCH_TOKEN',
      }),
    ).toBe('svc: SERVICE_IDENTITY_TOKEN_ENV: SVC_NO_SUCH_TOKEN is not set\n');
    expect(await refused(['--identity-method', 'saml', '--identity-id', 'abc'])).toContain(
      "argument 'saml' is invalid. Allowed choices are kubernetes, aws, gcp, azure, oidc",
    );
  });

  it('--help documents the identity settings and their variables', async () => {
    const help = await live.svc(['run', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Workload identity (instead of --api-key):');
    for (const name of ['ID', 'METHOD', 'TOKEN_FILE', 'AUDIENCE', 'STS_ENDPOINT', 'REFRESH_AT']) {
      expect(help.stdout).toContain(`SERVICE_IDENTITY_${name}`);
    }
  });
});
