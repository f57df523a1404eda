/**
 * `svc run` (the built dist/svc.mjs, a real process) against the live console and api: what the
 * command sees in its environment, file secrets on disk only while it runs, exit statuses and
 * signals passed through, and `--watch` restarting it on a console change.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@svc/testkit';
import { liveService } from './support/live.ts';

const live = liveService();
const P = '/workspaces/run/projects/web';
let sk = '';
let pk = '';
let base: Record<string, string> = {};

/** A node child that prints what it got as one JSON line: variables, and the file secret's state. */
const SHOW = `
const fs = require('node:fs');
const path = require('node:path');
const file = process.env.TLS_CERT;
const st = file && fs.statSync(file);
console.log(JSON.stringify({
  env: process.env,
  file: file && { content: fs.readFileSync(file, 'utf8'), mode: st.mode & 0o777, dirMode: fs.statSync(path.dirname(path.dirname(file))).mode & 0o777 },
}));`;

async function keyWorks(key: string): Promise<void> {
  await waitFor(async () => {
    const res = await fetch(`${live.apiUrl}/run/v1/sync`, {
      headers: { 'x-service-api-key': key },
    });
    await res.arrayBuffer();
    return res.status === 200;
  }, 10_000);
}

beforeAll(async () => {
  await live.admin('POST', '/workspaces', { slug: 'run', name: 'Run' });
  await live.admin('POST', '/workspaces/run/projects', { slug: 'web', name: 'Web' });
  await live.admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
  await live.admin('PUT', `${P}/configs/db.pool`, { value: { max: 10 } });
  await live.admin('PUT', `${P}/configs/retry-count`, { value: 3 });
  await live.admin('PUT', `${P}/secrets/stripe.api_key`, { value: 'sk_live_run_1' });
  await live.admin('PUT', `${P}/secrets/tls.cert`, {
    value: '-----BEGIN CERT-----',
    type: 'file',
    file_name: 'tls.pem',
  });
  sk = await live.createKey('run', 'web', 'secret');
  pk = await live.createKey('run', 'web', 'public');
  await keyWorks(sk);
  await keyWorks(pk);
  base = { SERVICE_BASE_URL: `${live.apiUrl}/run`, SERVICE_API_KEY: sk };
});

function shown(stdout: string): { env: Record<string, string>; file?: any } {
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

describe('svc run', () => {
  it('gives a node child every config and secret, a file secret as a private 0600 file that is gone afterwards', async () => {
    const result = await live.svc(['run', '--', process.execPath, '-e', SHOW], { env: base });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { env, file } = shown(result.stdout);
    expect(env.UI_THEME).toBe('dark');
    expect(env.DB_POOL).toBe('{"max":10}');
    expect(env.RETRY_COUNT).toBe('3');
    expect(env.STRIPE_API_KEY).toBe('sk_live_run_1');
    expect(env.TLS_CERT).toMatch(/tls\.pem$/);
    expect(file).toEqual({ content: '-----BEGIN CERT-----', mode: 0o600, dirMode: 0o700 });
    expect(existsSync(env.TLS_CERT!)).toBe(false);
  });

  it('gives a shell script the same, flags are not variables', async () => {
    const script = join(mkdtempSync(join(tmpdir(), 'svc-cli-script-')), 'show-values.sh');
    writeFileSync(
      script,
      '#!/bin/sh\necho "$UI_THEME|$DB_POOL|$STRIPE_API_KEY|$(cat "$TLS_CERT")|${CHECKOUT_V2-unset}"\n',
      { mode: 0o755 },
    );
    await live.admin('PUT', `${P}/flags/checkout.v2`, { is_active: true });
    const result = await live.svc(['run', '--', script], { env: base });
    rmSync(dirname(script), { recursive: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('dark|{"max":10}|sk_live_run_1|-----BEGIN CERT-----|unset\n');
  });

  it('takes the URL and key from flags too, without "--" when the command has no options of its own', async () => {
    const result = await live.svc(
      ['run', '--base-url', `${live.apiUrl}/run`, '--api-key', sk, 'printenv', 'UI_THEME'],
      { env: { SERVICE_BASE_URL: undefined, SERVICE_API_KEY: undefined } },
    );
    expect(result).toMatchObject({ code: 0, stdout: 'dark\n' });
  });

  it('a public key: public configs only, no secret', async () => {
    const result = await live.svc(['run', '--', process.execPath, '-e', SHOW], {
      env: { ...base, SERVICE_API_KEY: pk },
    });
    expect(result.code).toBe(0);
    const { env } = shown(result.stdout);
    expect(env.UI_THEME).toBe('dark');
    expect(env.DB_POOL).toBeUndefined();
    expect(env.STRIPE_API_KEY).toBeUndefined();
    expect(env.TLS_CERT).toBeUndefined();
  });

  it('variables already set win, unless --override', async () => {
    const env = { ...base, UI_THEME: 'from-the-shell' };
    const kept = await live.svc(['run', '--', 'printenv', 'UI_THEME'], { env });
    expect(kept.stdout).toBe('from-the-shell\n');
    const replaced = await live.svc(['run', '--override', '--', 'printenv', 'UI_THEME'], { env });
    expect(replaced.stdout).toBe('dark\n');
  });

  it('two keys that map to one name: an error naming both, and the command does not run', async () => {
    await live.admin('POST', '/workspaces/run/projects', { slug: 'clash', name: 'Clash' });
    await live.admin('PUT', '/workspaces/run/projects/clash/configs/db.pool', { value: 1 });
    await live.admin('PUT', '/workspaces/run/projects/clash/secrets/db-pool', { value: 'x' });
    const key = await live.createKey('run', 'clash', 'secret');
    await keyWorks(key);
    const result = await live.svc(['run', '--', 'echo', 'ran'], {
      env: { ...base, SERVICE_API_KEY: key },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'config "db.pool" and secret "db-pool" both map to the variable DB_POOL',
    );
  });

  it("the command's exit status is svc's; 128 + n when signal n killed it; 127 when it is not found", async () => {
    expect((await live.svc(['run', '--', 'sh', '-c', 'exit 7'], { env: base })).code).toBe(7);
    expect((await live.svc(['run', '--', 'sh', '-c', 'kill -KILL $$'], { env: base })).code).toBe(
      137,
    );
    const missing = await live.svc(['run', '--', 'no-such-command-here'], { env: base });
    expect(missing.code).toBe(127);
    expect(missing.stderr).toContain('cannot run no-such-command-here');
  });

  it('passes SIGTERM and SIGINT on to the command and exits with its status', async () => {
    // The command traps the signal, says so and exits 42; a second one keeps the default action.
    const trapping = `trap 'echo got-$1; exit 42' $1; echo ready; while :; do sleep 0.05; done`;
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const name = signal.slice(3);
      const svc = live.start(['run', '--', 'sh', '-c', trapping, 'sh', name], { env: base });
      await waitFor(() => svc.stdout().includes('ready'), 10_000);
      svc.child.kill(signal);
      const result = await svc.exited;
      expect(result.stdout).toContain(`got-${name}`);
      expect(result.code).toBe(42);
    }
    const plain = live.start(['run', '--', 'sh', '-c', 'echo ready; exec sleep 30'], { env: base });
    await waitFor(() => plain.stdout().includes('ready'), 10_000);
    plain.child.kill('SIGTERM');
    expect((await plain.exited).code).toBe(143);
  });

  it('a missing key or base URL, and a failed sync, are errors before anything runs', async () => {
    const noKey = await live.svc(['run', '--', 'echo', 'ran'], {
      env: { ...base, SERVICE_API_KEY: undefined },
    });
    expect(noKey).toMatchObject({ code: 1, stdout: '' });
    expect(noKey.stderr).toContain('SERVICE_API_KEY');
    const wrongWorkspace = await live.svc(['run', '--', 'echo', 'ran'], {
      env: { ...base, SERVICE_BASE_URL: `${live.apiUrl}/nope` },
    });
    expect(wrongWorkspace).toMatchObject({ code: 1, stdout: '' });
    expect(wrongWorkspace.stderr).toContain('the sync failed');
  });
});

describe('svc run --watch', () => {
  it('restarts the command when a value it received changes, with the new value, and only then', async () => {
    await live.admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
    const svc = live.start(
      [
        'run',
        '--watch',
        '--',
        'sh',
        '-c',
        'echo "file $TLS_CERT"; echo "start $UI_THEME $(cat "$TLS_CERT")"; exec sleep 60',
      ],
      { env: { ...base, DB_POOL: 'from-the-shell' } },
    );
    await waitFor(() => svc.stdout().includes('start dark'), 10_000);
    const starts = () =>
      svc
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('start')).length;

    // A value the command did not receive (the shell's DB_POOL won): no restart.
    await live.admin('PUT', `${P}/configs/db.pool`, { value: { max: 11 } });
    await new Promise((r) => setTimeout(r, 500));
    expect(starts()).toBe(1);

    const changedAt = performance.now();
    await live.admin('PUT', `${P}/configs/ui.theme`, { value: 'light', is_public: true });
    await waitFor(() => svc.stdout().includes('start light'), 10_000);
    const restartMs = performance.now() - changedAt;
    console.info(
      `console PUT -> restarted command printed its new value: ${restartMs.toFixed(0)} ms`,
    );
    // 200 ms is the goal (bench/svc-run measures it); a loaded CI core gets slack here.
    expect(restartMs).toBeLessThan(2000);
    expect(svc.stderr()).toContain('UI_THEME changed: restarting sh');

    // A file secret's new content restarts it too, and the command reads the new file.
    await live.admin('PUT', `${P}/secrets/tls.cert`, {
      value: '-----BEGIN CERT 2-----',
      type: 'file',
      file_name: 'tls.pem',
    });
    await waitFor(() => svc.stdout().includes('start light -----BEGIN CERT 2-----'), 10_000);
    expect(starts()).toBe(3);

    const file = /^file (.+)$/m.exec(svc.stdout())![1]!;
    expect(existsSync(file)).toBe(true);
    svc.child.kill('SIGTERM');
    const result = await svc.exited;
    expect(result.code).toBe(143);
    expect(existsSync(file)).toBe(false);
  });

  it('SIGKILLs a command that ignores SIGTERM for longer than the grace period', async () => {
    const stubborn = `trap '' TERM; echo "start $UI_THEME $$"; while :; do sleep 0.05; done`;
    const svc = live.start(
      ['run', '--watch', '--grace-period', '0.3', '--', 'sh', '-c', stubborn],
      {
        env: base,
      },
    );
    await waitFor(() => /start \w+/.test(svc.stdout()), 10_000);
    const before = svc.stdout();
    const next = before.includes('start light') ? 'dark' : 'light';
    await live.admin('PUT', `${P}/configs/ui.theme`, { value: next, is_public: true });
    await waitFor(() => svc.stdout().includes(`start ${next}`), 10_000);
    expect(svc.stderr()).toContain('did not stop within the grace period: SIGKILL');
    // This one ignores SIGTERM too: kill it, and svc ends with its status.
    const pid = Number(new RegExp(`start ${next} (\\d+)`).exec(svc.stdout())![1]);
    process.kill(pid, 'SIGKILL');
    expect((await svc.exited).code).toBe(137);
  });
});
