/**
 * What `pnpm start` runs: the console and the api built into `dist/main.mjs` by
 * `scripts/bundle.ts`, each started by plain `node` (no TypeScript loader). Built here from the
 * current source; then, on embedded SQLite and on PostgreSQL (the bundled pg driver), the console
 * serves its page and management API, a change made there reaches the api's stream and sync, and
 * both stop cleanly on SIGTERM.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, httpCall, tempDir, waitFor } from '@svc/testkit';
import { openStream } from '@svc/sse/testing';
import { createTestDatabase, requirePostgres } from '@svc/storage-postgres/testing';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const TOKEN = 'test-admin-token-bundles-0123456789';
const P = '/api/workspaces/acme/projects/web';

const { server } = await requirePostgres();

function bundle(app: string, ...args: string[]): void {
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/bundle.ts'), ...args], {
    cwd: join(root, 'apps', app),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

beforeAll(() => {
  bundle('console', '--copy', 'src/page');
  bundle('api');
}, 60_000);

/** The two bundles over one storage: `storage()` gives their environment and its cleanup. */
function describeBundles(
  name: string,
  storage: () => Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }>,
  skip = false,
): void {
  describe.skipIf(skip)(`the bundled apps on plain node, ${name}`, () => {
    const ports = { console: 0, api: 0 };
    const processes: Record<string, ChildProcess> = {};
    let env: Record<string, string> = {};
    let cleanup = async (): Promise<void> => {};
    let dataDir = '';

    async function startBundle(app: 'console' | 'api'): Promise<void> {
      ports[app] = await freePort();
      const child = spawn(process.execPath, [join(root, 'apps', app, 'dist/main.mjs')], {
        env: {
          PATH: process.env.PATH,
          DATA_DIR: dataDir,
          HOST: '127.0.0.1',
          LOG_LEVEL: 'silent',
          CONSOLE_ADMIN_TOKEN: TOKEN,
          SEED_DEMO: 'false',
          [app === 'api' ? 'PORT' : 'CONSOLE_PORT']: String(ports[app]),
          ...env,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      processes[app] = child;
      await waitFor(async () => {
        if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}`);
        return (
          (await httpCall(ports[app], 'GET', '/readyz').catch(() => undefined))?.status === 200
        );
      }, 20_000);
    }

    async function admin(method: string, path: string, body?: unknown) {
      const res = await httpCall(ports.console, method, path, {
        headers: { authorization: `Bearer ${TOKEN}` },
        body,
      });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
      return res;
    }

    beforeAll(async () => {
      dataDir = tempDir('svc-bundles-');
      ({ env, cleanup } = await storage());
      await startBundle('console');
      await startBundle('api');
    }, 60_000);

    afterAll(async () => {
      for (const child of Object.values(processes)) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await once(child, 'exit');
        }
      }
      await cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('serve the console page from beside the bundle', async () => {
      const page = await httpCall(ports.console, 'GET', '/');
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('console.js');
      expect((await httpCall(ports.console, 'GET', '/console.js')).status).toBe(200);
    });

    it("carry a console change to the api's stream and sync", async () => {
      await admin('POST', '/api/workspaces', { slug: 'acme', name: 'Acme' });
      await admin('POST', '/api/workspaces/acme/projects', { slug: 'web', name: 'Web' });
      await admin('PUT', `${P}/secrets/stripe.api_key`, { value: 'sk_live_bundle_5512' });
      const key = (await admin('POST', `${P}/keys`, { kind: 'secret' })).json().key as string;
      // The api learns of the new key through its change feed.
      await waitFor(
        async () =>
          (
            await httpCall(ports.api, 'GET', '/acme/v1/sync', {
              headers: { 'x-service-api-key': key },
            })
          ).status === 200,
      );

      const stream = await openStream(ports.api, '/acme/v1/stream', {
        headers: { 'x-service-api-key': key },
      });
      expect((await stream.next()).event).toBe('resync');
      await admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
      const event = await stream.next();
      expect(event.event).toBe('change');
      expect(JSON.parse(event.data)).toMatchObject({
        kind: 'config',
        key: 'ui.theme',
        value: 'dark',
      });
      stream.close();

      const sync = await httpCall(ports.api, 'GET', '/acme/v1/sync', {
        headers: { 'x-service-api-key': key },
      });
      expect(sync.status).toBe(200);
      expect(sync.json()).toMatchObject({
        configs: { 'ui.theme': 'dark' },
        secrets: { 'stripe.api_key': { value: 'sk_live_bundle_5512' } },
      });
    });

    it('stop cleanly on SIGTERM', async () => {
      for (const child of [processes.api!, processes.console!]) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        expect(await exited).toEqual([0, null]);
      }
    });
  });
}

describeBundles('embedded SQLite', async () => ({ env: {}, cleanup: async () => {} }));

// Without PG_URL (and without CI, where requirePostgres fails instead) this one is skipped.
describeBundles(
  'PostgreSQL',
  async () => {
    const database = await createTestDatabase(server!);
    return {
      env: { DATABASE_URL: database.url, SERVICE_ROOT_KEY: randomBytes(32).toString('base64') },
      cleanup: () => database.drop(),
    };
  },
  !server,
);
