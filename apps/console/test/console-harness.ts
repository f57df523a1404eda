/** A console on a free port over a temp SQLite DATA_DIR, and management calls to it. */
import { rmSync } from 'node:fs';
import { createLogger, loadSettings } from '@svc/runtime';
import { httpCall, tempDir, type HttpResponse } from '@svc/testkit';
import { startConsole, type ConsoleApp } from '../src/index.ts';

export const TOKEN = 'console-test-token-0123456789';

export interface TestConsole {
  app: ConsoleApp;
  dataDir: string;
  /** A management call (`path` under `/api`) with the admin token, or `token` ('' for none). */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> },
    token?: string,
  ): Promise<HttpResponse>;
  stop(): Promise<void>;
}

export async function startTestConsole(env: Record<string, string> = {}): Promise<TestConsole> {
  const dataDir = tempDir('svc-console-');
  const settings = loadSettings({
    DATA_DIR: dataDir,
    CONSOLE_PORT: '0',
    HOST: '127.0.0.1',
    CONSOLE_ADMIN_TOKEN: TOKEN,
    ...env,
  });
  const app = await startConsole(settings, createLogger({ name: 'test', level: 'silent' }));
  return {
    app,
    dataDir,
    call: (method, path, options = {}, token = TOKEN) =>
      httpCall(app.port, method, `/api${path}`, {
        ...options,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...options.headers },
      }),
    async stop() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
