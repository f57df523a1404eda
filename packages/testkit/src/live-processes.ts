/**
 * The real console and api as child processes (`node --import tsx apps/…/src/main.ts`) over one
 * temp SQLite DATA_DIR, for end-to-end tests that must kill and restart the api (clients, the
 * browser bindings).
 */
import { rmSync } from 'node:fs';
import { startAppProcess, type AppProcess } from './app-process.ts';
import { adminCalls, type HttpResponse } from './index.ts';

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

/**
 * Starts the console, then the api, on free ports; `env` adds settings to both, `apiEnv` to the
 * api alone (a METRICS_PORT, say: the two processes cannot share one).
 */
export async function startProcesses(
  adminToken: string,
  env: Record<string, string> = {},
  apiEnv: Record<string, string> = {},
): Promise<ProcessServer> {
  const common = { CONSOLE_ADMIN_TOKEN: adminToken, ...env };
  // One after the other: the first start creates the root key file that both then share.
  const consoleApp = await startAppProcess('console', common);
  const { dataDir } = consoleApp;
  let api: AppProcess;
  try {
    api = await startAppProcess('api', { ...common, ...apiEnv }, { dataDir });
  } catch (error) {
    await consoleApp.remove();
    throw error;
  }
  return {
    apiUrl: `http://127.0.0.1:${api.port}`,
    apiPort: api.port,
    consolePort: consoleApp.port,
    dataDir,
    ...adminCalls(() => consoleApp.port, adminToken),
    killApi: (hard = false) => api.kill(hard ? 'SIGKILL' : 'SIGTERM'),
    startApi: () => api.start(),
    async stop() {
      await api.kill('SIGTERM');
      await consoleApp.kill('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
