/** What operators see: metrics on their own port only, and request logs without query strings. */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, loadSettings } from '@svc/runtime';
import { httpCall, tempDir } from '@svc/testkit';
import { startConsole, type ConsoleApp } from '../src/index.ts';

const TOKEN = 'console-test-token-0123456789';
const logs: string[] = [];
let app: ConsoleApp;
let dataDir: string;

beforeAll(async () => {
  dataDir = tempDir('svc-console-');
  const settings = loadSettings({
    DATA_DIR: dataDir,
    CONSOLE_PORT: '0',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    CONSOLE_ADMIN_TOKEN: TOKEN,
    LOG_LEVEL: 'info',
  });
  const logger = createLogger(
    { name: 'test', level: 'info' },
    { write: (line: string) => void logs.push(line) },
  );
  app = await startConsole(settings, logger);
});

afterAll(async () => {
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('console operations', () => {
  it('serves /metrics on METRICS_PORT only, never on the public port', async () => {
    await httpCall(app.port, 'GET', '/api/workspaces', {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect((await httpCall(app.port, 'GET', '/metrics')).status).toBe(404);
    const scrape = await httpCall(app.metricsPort, 'GET', '/metrics');
    expect(scrape.status).toBe(200);
    expect(scrape.text).toMatch(/^svc_http_requests_total\{route="management",status="200"\} \d/m);
  });

  it('logs requests by path, without their query strings', async () => {
    await httpCall(app.port, 'GET', '/api/workspaces?reveal=true&note=private-words', {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const requestLines = logs.filter((l) => l.includes('"/api/workspaces'));
    expect(requestLines.length).toBeGreaterThan(0);
    expect(logs.join('\n')).not.toContain('private-words');
  });
});
