/**
 * A live service for the client's tests: the real console and api started in this process on
 * free loopback ports over one temp SQLite file (the same wiring as apps/api's harness), or as
 * real child processes when a test needs to kill and restart the api.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startApi, type ApiApp } from '@svc/api';
import { startConsole, type ConsoleApp } from '@svc/console';
import { createLogger, loadSettings } from '@svc/runtime';
import { adminCalls, freePort, httpCall, tempDir, waitFor, type HttpResponse } from '@svc/testkit';

export { freePort };

export const ADMIN_TOKEN = 'client-test-admin-token-0123456789';
const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));

export interface LiveServer {
  /** `http://127.0.0.1:{port}` of the api. */
  apiUrl: string;
  apiPort: number;
  consolePort: number;
  dataDir: string;
  /** A management API call (`path` below `/api`); throws unless it answers 2xx. */
  admin(method: string, path: string, body?: unknown): Promise<HttpResponse>;
  /** The same without the status check. */
  adminRaw(method: string, path: string, body?: unknown): Promise<HttpResponse>;
  stop(): Promise<void>;
}

/** Console and api in this process (fast): for everything but killing the api. */
export async function startInProcess(env: Record<string, string> = {}): Promise<LiveServer> {
  const dataDir = tempDir('svc-client-test-');
  const settings = loadSettings({
    DATA_DIR: dataDir,
    PORT: '0',
    CONSOLE_PORT: '0',
    HOST: '127.0.0.1',
    CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    ...env,
  });
  const logger = createLogger({ name: 'client-test', level: 'silent' });
  const consoleApp: ConsoleApp = await startConsole(settings, logger, { seedDemo: false });
  const api: ApiApp = await startApi(settings, logger);
  return {
    apiUrl: `http://127.0.0.1:${api.port}`,
    apiPort: api.port,
    consolePort: consoleApp.port,
    dataDir,
    ...adminCalls(() => consoleApp.port, ADMIN_TOKEN),
    async stop() {
      await api.close();
      await consoleApp.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
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

export interface ProcessServer extends LiveServer {
  /** Stops the api process (SIGKILL when `hard`, else SIGTERM) and waits for its exit. */
  killApi(hard?: boolean): Promise<void>;
  /** Starts the api process again on the same port and data, and waits until it is ready. */
  startApi(): Promise<void>;
}

/** Console and api as child processes (`node --import tsx apps/…/src/main.ts`). */
export async function startProcesses(env: Record<string, string> = {}): Promise<ProcessServer> {
  const dataDir = tempDir('svc-client-process-');
  const [apiPort, consolePort] = [await freePort(), await freePort()];
  const common = { DATA_DIR: dataDir, HOST: '127.0.0.1', CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN, ...env };
  const consoleProcess = spawnApp('apps/console/src/main.ts', {
    ...common,
    CONSOLE_PORT: String(consolePort),
  });
  let api: ChildProcess | undefined;
  const startApiProcess = async () => {
    api = spawnApp('apps/api/src/main.ts', { ...common, PORT: String(apiPort) });
    await ready(api, apiPort);
  };
  const stopProcess = async (child: ChildProcess | undefined, signal: NodeJS.Signals) => {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  };
  try {
    await ready(consoleProcess, consolePort);
    await startApiProcess();
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
    ...adminCalls(() => consolePort, ADMIN_TOKEN),
    killApi: (hard = false) => stopProcess(api, hard ? 'SIGKILL' : 'SIGTERM'),
    startApi: startApiProcess,
    async stop() {
      await stopProcess(api, 'SIGTERM');
      await stopProcess(consoleProcess, 'SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
