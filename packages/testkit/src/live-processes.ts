/**
 * The real console and api as child processes (`node --import tsx apps/…/src/main.ts`) over one
 * temp SQLite DATA_DIR, for end-to-end tests that must kill and restart the api (clients, the
 * browser bindings).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminCalls, freePort, httpCall, tempDir, waitFor, type HttpResponse } from './index.ts';

// Path arithmetic rather than `new URL(…)`: under jsdom, URL is jsdom's.
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ProcessServer {
  /** `http://127.0.0.1:{port}` of the api. */
  apiUrl: string;
  apiPort: number;
  consolePort: number;
  dataDir: string;
  /** A management API call (`path` below `/api`); throws unless it answers 2xx. */
  admin(method: string, path: string, body?: unknown): Promise<HttpResponse>;
  /** The same without the status check. */
  adminRaw(method: string, path: string, body?: unknown): Promise<HttpResponse>;
  /** Stops the api process (SIGKILL when `hard`, else SIGTERM) and waits for its exit. */
  killApi(hard?: boolean): Promise<void>;
  /** Starts the api process again on the same port and data, and waits until it is ready. */
  startApi(): Promise<void>;
  /** Stops both processes and removes the data. */
  stop(): Promise<void>;
}

function spawnApp(entry: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'silent', SEED_DEMO: 'false', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function ready(child: ChildProcess, port: number): Promise<void> {
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`);
    const res = await httpCall(port, 'GET', '/readyz').catch(() => undefined);
    return res?.status === 200;
  }, 30_000);
}

async function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals) {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/**
 * Starts the console, then the api, on free ports; `env` adds settings to both, `apiEnv` to the
 * api alone (a METRICS_PORT, say: the two processes cannot share one).
 */
export async function startProcesses(
  adminToken: string,
  env: Record<string, string> = {},
  apiEnv: Record<string, string> = {},
): Promise<ProcessServer> {
  const dataDir = tempDir('svc-processes-');
  const [apiPort, consolePort] = [await freePort(), await freePort()];
  const common = { DATA_DIR: dataDir, HOST: '127.0.0.1', CONSOLE_ADMIN_TOKEN: adminToken, ...env };
  // One after the other: the first start creates the root key file that both then share.
  const consoleProcess = spawnApp('apps/console/src/main.ts', {
    ...common,
    CONSOLE_PORT: String(consolePort),
  });
  let api: ChildProcess | undefined;
  const startApi = async () => {
    api = spawnApp('apps/api/src/main.ts', { ...common, ...apiEnv, PORT: String(apiPort) });
    await ready(api, apiPort);
  };
  try {
    await ready(consoleProcess, consolePort);
    await startApi();
  } catch (error) {
    await stopProcess(api, 'SIGKILL');
    await stopProcess(consoleProcess, 'SIGKILL');
    throw error;
  }
  return {
    apiUrl: `http://127.0.0.1:${apiPort}`,
    apiPort,
    consolePort,
    dataDir,
    ...adminCalls(() => consolePort, adminToken),
    killApi: (hard = false) => stopProcess(api, hard ? 'SIGKILL' : 'SIGTERM'),
    startApi,
    async stop() {
      await stopProcess(api, 'SIGTERM');
      await stopProcess(consoleProcess, 'SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
