/**
 * The real console and api as child processes (`node --import tsx apps/…/src/main.ts`, as the
 * apps run) on free loopback ports over one temp data folder, or over `DATABASE_URL` when the
 * environment names one: for tests whose client is another process or another language.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { adminCalls, freePort, httpCall, tempDir, waitFor, type HttpResponse } from './index.ts';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

export interface LiveService {
  /** `http://127.0.0.1:{port}` of the api. */
  apiUrl: string;
  apiPort: number;
  consolePort: number;
  /** The admin token of the management API. */
  adminToken: string;
  /** A management API call (`path` below `/api`); throws unless it answers 2xx. */
  admin(method: string, path: string, body?: unknown): Promise<HttpResponse>;
  adminRaw(method: string, path: string, body?: unknown): Promise<HttpResponse>;
  stop(): Promise<void>;
}

function startApp(app: 'api' | 'console', env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', `apps/${app}/src/main.ts`], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'silent', SEED_DEMO: 'false', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function ready(child: ChildProcess, port: number): Promise<void> {
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`the app exited with ${child.exitCode}`);
    return (await httpCall(port, 'GET', '/readyz').catch(() => undefined))?.status === 200;
  }, 30_000);
}

/** Where a live service listens: what a test file started by another process gets told. */
export interface LiveServiceAddress {
  apiPort: number;
  consolePort: number;
  adminToken: string;
}

/** The calls of a live service (started elsewhere, e.g. by a vitest global setup). */
export function liveServiceAt(address: LiveServiceAddress): Omit<LiveService, 'stop'> {
  const { apiPort, consolePort, adminToken } = address;
  return {
    apiUrl: `http://127.0.0.1:${apiPort}`,
    apiPort,
    consolePort,
    adminToken,
    ...adminCalls(() => consolePort, adminToken),
  };
}

/** Starts the console, then the api; `env` adds settings (e.g. `DATABASE_URL`). */
export async function startLiveService(
  env: Record<string, string> = {},
  options: { adminToken?: string } = {},
): Promise<LiveService> {
  const dataDir = tempDir('svc-live-');
  const adminToken = options.adminToken ?? 'live-service-admin-token-0123456789';
  const [consolePort, apiPort] = [await freePort(), await freePort()];
  const common = { DATA_DIR: dataDir, HOST: '127.0.0.1', CONSOLE_ADMIN_TOKEN: adminToken, ...env };
  const apps: ChildProcess[] = [];
  const stop = async () => {
    for (const child of apps.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    apps.push(startApp('console', { ...common, CONSOLE_PORT: String(consolePort) }));
    await ready(apps[0]!, consolePort);
    apps.push(startApp('api', { ...common, PORT: String(apiPort) }));
    await ready(apps[1]!, apiPort);
  } catch (error) {
    await stop();
    throw error;
  }
  return { ...liveServiceAt({ apiPort, consolePort, adminToken }), stop };
}
