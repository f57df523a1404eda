/**
 * The apps under test, as their own processes (`node --import tsx apps/<app>/src/main.ts`) over
 * one temp DATA_DIR and SQLite, or a PostgreSQL database: a console always, an api when a target
 * asks for it. The console is seeded with what the targets' parameters name: workspace `acme`,
 * project `web`, service `api`, a few values at both levels, and a secret and a public key.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminCalls, freePort, httpCall, tempDir, waitFor } from '@svc/testkit';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface Fixture {
  consoleUrl: string;
  adminToken: string;
  /** Starts the api on first use. */
  apiUrl(): Promise<string>;
  secretKey: string;
  publicKey: string;
  /** The apps' own output (warnings and errors), for a failure's message. */
  logs(): string;
  stop(): Promise<void>;
}

export async function startFixture(env: Record<string, string> = {}): Promise<Fixture> {
  const dataDir = tempDir('svc-fuzz-');
  const logFile = join(dataDir, 'apps.log');
  const log = createWriteStream(logFile);
  const adminToken = `fuzz-${randomBytes(18).toString('base64url')}`;
  const children: ChildProcess[] = [];
  const common = {
    ...process.env,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    CONSOLE_ADMIN_TOKEN: adminToken,
    SEED_DEMO: 'false',
    // The fuzzer writes and syncs far faster than a client: limits would leave it only 429s.
    WRITE_RATE_LIMIT_MAX: '1000000',
    SYNC_QUARANTINE_MAX: '1000000',
    LOG_LEVEL: 'warn',
    ...env,
  };

  async function start(app: 'console' | 'api', portVariable: string): Promise<string> {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', `apps/${app}/src/main.ts`], {
      cwd: ROOT,
      env: { ...common, [portVariable]: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
    children.push(child);
    await waitFor(async () => {
      if (child.exitCode !== null) {
        const said = readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n');
        throw new Error(`${app} exited with ${child.exitCode}:\n${said}`);
      }
      return (await httpCall(port, 'GET', '/readyz').catch(() => undefined))?.status === 200;
    }, 60_000);
    return `http://127.0.0.1:${port}`;
  }

  const consoleUrl = await start('console', 'CONSOLE_PORT');
  const { admin } = adminCalls(() => Number(new URL(consoleUrl).port), adminToken);
  const p = '/workspaces/acme/projects/web';
  await admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  await admin('POST', `${p}/services`, { slug: 'api', name: 'API' });
  await admin('PATCH', p, { ab_testing: true });
  for (const scope of [p, `${p}/services/api`]) {
    await admin('PUT', `${scope}/configs/ui.theme`, { value: { mode: 'dark' }, is_public: true });
    await admin('PUT', `${scope}/flags/checkout.v2`, { is_active: true, rollout_percentage: 25 });
    await admin('PUT', `${scope}/secrets/db.password`, { value: 'hunter2' });
    await admin('PUT', `${scope}/secrets/tls.cert`, {
      value: 'PEM',
      type: 'file',
      file_name: 'tls.pem',
    });
  }
  const secretKey = (await admin('POST', `${p}/keys`, { kind: 'secret' })).json().key as string;
  const publicKey = (await admin('POST', `${p}/keys`, { kind: 'public' })).json().key as string;

  let api: Promise<string> | undefined;
  return {
    consoleUrl,
    adminToken,
    apiUrl: () => (api ??= start('api', 'PORT')),
    secretKey,
    publicKey,
    logs: () => readFileSync(logFile, 'utf8'),
    async stop() {
      for (const child of children) {
        if (child.exitCode !== null) continue;
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
      log.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
