/**
 * A live service for the client's tests: the real console and api started in this process on
 * free loopback ports over one temp SQLite file (the same wiring as apps/api's harness), or as
 * real child processes when a test needs to kill and restart the api.
 */
import { rmSync } from 'node:fs';
import { startApi, type ApiApp } from '@svc/api';
import { startConsole, type ConsoleApp } from '@svc/console';
import { createLogger, loadSettings } from '@svc/runtime';
import {
  adminCalls,
  freePort,
  startProcesses as startKitProcesses,
  tempDir,
  type ProcessServer,
} from '@svc/testkit';

export { freePort };

export const ADMIN_TOKEN = 'client-test-admin-token-0123456789';

/** A live console and api: the processes' interface without their restart controls. */
export type LiveServer = Omit<ProcessServer, 'killApi' | 'startApi'>;

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

export type { ProcessServer };

/** Console and api as child processes, with the client tests' admin token. */
export function startProcesses(env: Record<string, string> = {}): Promise<ProcessServer> {
  return startKitProcesses(ADMIN_TOKEN, env);
}
