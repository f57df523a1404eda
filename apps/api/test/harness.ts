/**
 * Starts the real console and api on free ports over one temp SQLite file, and talks HTTP to
 * them through real sockets.
 */
import { rmSync } from 'node:fs';
import { httpCall, tempDir, type HttpResponse } from '@svc/testkit';
import { createLogger, loadSettings, type Settings } from '@svc/runtime';
import { startConsole, type ConsoleApp } from '@svc/console';
import { startApi, type ApiApp } from '../src/index.ts';

export { httpCall };

export interface Harness {
  settings: Settings;
  api: ApiApp;
  console: ConsoleApp;
  dataDir: string;
  /** Management API call with the admin token. */
  admin(method: string, path: string, body?: unknown): Promise<HttpResponse>;
  /** `GET {slug}/v1/sync` in path form. */
  sync(key: string, options?: { slug?: string; etag?: string }): Promise<HttpResponse>;
  /** Creates a key through the management API and returns its plaintext. */
  createKey(
    project: string,
    kind: 'secret' | 'public',
    service?: string,
    ws?: string,
  ): Promise<string>;
  /** Waits until the api's sync for `key` satisfies `until`. */
  syncUntil(key: string, until: (body: any) => boolean, timeoutMs?: number): Promise<any>;
  stop(): Promise<void>;
}

/** `logs` collects every log line of both apps (at LOG_LEVEL, silent by default). */
export async function startHarness(
  env: Record<string, string> = {},
  options: { logs?: string[] } = {},
): Promise<Harness> {
  const dataDir = tempDir('svc-e2e-');
  const settings = loadSettings({
    DATA_DIR: dataDir,
    PORT: '0',
    CONSOLE_PORT: '0',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    CONSOLE_ADMIN_TOKEN: 'test-admin-token-0123456789',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const logs = options.logs;
  const logger = createLogger(
    { name: 'test', level: settings.LOG_LEVEL },
    logs ? { write: (line: string) => void logs.push(line) } : undefined,
  );
  const consoleApp = await startConsole(settings, logger, { seedDemo: false });
  const api = await startApi(settings, logger);
  const admin = (method: string, path: string, body?: unknown) =>
    httpCall(consoleApp.port, method, `/api${path}`, {
      headers: { authorization: `Bearer ${settings.CONSOLE_ADMIN_TOKEN}` },
      body,
    });
  const sync = (key: string, o: { slug?: string; etag?: string } = {}) =>
    httpCall(api.port, 'GET', `/${o.slug ?? 'acme'}/v1/sync`, {
      headers: { 'x-service-api-key': key, ...(o.etag ? { 'if-none-match': o.etag } : {}) },
    });
  return {
    settings,
    api,
    console: consoleApp,
    dataDir,
    admin,
    sync,
    async createKey(project, kind, service, ws = 'acme') {
      const res = await admin('POST', `/workspaces/${ws}/projects/${project}/keys`, {
        kind,
        ...(service ? { service } : {}),
      });
      if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
      return res.json().key as string;
    },
    async syncUntil(key, until, timeoutMs = 2000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const res = await sync(key);
        if (res.status === 200 && until(res.json())) return res.json();
        if (Date.now() > deadline)
          throw new Error(`sync never satisfied the condition: ${res.status} ${res.text}`);
        await new Promise((r) => setTimeout(r, 2));
      }
    },
    async stop() {
      await api.close();
      await consoleApp.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
