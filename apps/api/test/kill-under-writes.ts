/**
 * The SIGKILL fault test, for one store (kill-faults-sqlite / kill-faults-postgres.e2e.test.ts,
 * one file per store so the two run side by side): the api and the console killed while both
 * take secret writes; every write that was acknowledged is in the database afterwards with its
 * value, and no version number is handed out twice. Processes are real and restarted on the
 * same data; the database is read directly at the end (through the store, opening each value).
 *
 * The suite runs a short round (one kill of each); `bench/faults/run.sh` runs the same with
 * more kills (FAULT_KILLS, FAULT_INTERVAL_MS) and reports the figures.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AesGcmSealer } from '@svc/crypto';
import { openSecret, type Store } from '@svc/domain';
import { openPostgresStore } from '@svc/storage-postgres';
import {
  createTestDatabase,
  requirePostgres,
  type TestDatabase,
} from '@svc/storage-postgres/testing';
import { openSqliteStore } from '@svc/storage-sqlite';
import { adminCalls, httpCall, tempDir, waitFor } from '@svc/testkit';
import { startAppProcess } from '@svc/testkit/app-process';

const TOKEN = 'test-admin-token-kills-0123456789';
const P = '/workspaces/acme/projects/web';
/** Kills of each process (api, console), one at a time, alternating. */
const KILLS = Number(process.env.FAULT_KILLS ?? 1);
/** Time under write load between two kills. */
const INTERVAL_MS = Number(process.env.FAULT_INTERVAL_MS ?? 1000);
const API_WRITERS = 3;
const CONSOLE_WRITERS = 1;

const { server } = await requirePostgres();
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}, 30_000);

interface Acknowledged {
  key: string;
  version: number;
  value: string;
}

export function describeKills(store: 'sqlite' | 'postgres'): void {
  describe('SIGKILL under concurrent writes', () => {
    it.skipIf(store === 'postgres' && !server)(
      `on ${store}: loses no acknowledged write and reuses no version`,
      async () => {
        const rootKey = randomBytes(32);
        const dataDir = tempDir('svc-kills-');
        let database: TestDatabase | undefined;
        if (store === 'postgres') database = await createTestDatabase(server!);
        cleanups.push(async () => {
          await database?.drop();
          rmSync(dataDir, { recursive: true, force: true });
        });
        const env = {
          SERVICE_ROOT_KEY: rootKey.toString('base64'),
          CONSOLE_ADMIN_TOKEN: TOKEN,
          WRITE_RATE_LIMIT_MAX: '1000000',
          // SQLite: both processes on the one file in the shared data folder.
          ...(database ? { DATABASE_URL: database.url } : {}),
        };
        const consoleApp = await startAppProcess('console', env, { dataDir });
        const api = await startAppProcess('api', env, { dataDir });
        cleanups.push(async () => {
          await api.remove();
          await consoleApp.remove();
        });
        const { admin, adminRaw } = adminCalls(() => consoleApp.port, TOKEN);
        await admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
        await admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
        const sk = (await admin('POST', `${P}/keys`, { kind: 'secret' })).json().key as string;
        await waitFor(
          async () =>
            (
              await httpCall(api.port, 'GET', '/acme/v1/sync', {
                headers: { 'x-service-api-key': sk },
              })
            ).status === 200,
          10_000,
        );

        const acknowledged: Acknowledged[] = [];
        let attempts = 0;
        let running = true;
        /** One writer: its own secret, a new value each time, until the round ends. */
        const writer = async (
          name: string,
          write: (key: string, value: string) => Promise<{ status: number; json: () => any }>,
        ) => {
          for (let n = 0; running; n++) {
            const key = `kill.${name}`;
            const value = `${name}-${n}-${randomBytes(4).toString('hex')}`;
            attempts++;
            const res = await write(key, value).catch(() => undefined);
            if (res && (res.status === 200 || res.status === 201)) {
              acknowledged.push({ key, version: res.json().version as number, value });
            } else {
              // Down, or refusing: try again shortly, as a client would.
              await new Promise((r) => setTimeout(r, 10));
            }
          }
        };
        const writers = [
          ...Array.from({ length: API_WRITERS }, (_, i) =>
            writer(`api${i}`, (key, value) =>
              httpCall(api.port, 'PUT', `/acme/v1/secrets/${key}`, {
                headers: { 'x-service-api-key': sk },
                body: { value },
              }),
            ),
          ),
          ...Array.from({ length: CONSOLE_WRITERS }, (_, i) =>
            writer(`console${i}`, (key, value) =>
              adminRaw('PUT', `${P}/secrets/${key}`, { value }),
            ),
          ),
        ];

        const started = performance.now();
        for (let i = 0; i < KILLS * 2; i++) {
          await new Promise((r) => setTimeout(r, INTERVAL_MS));
          const victim = i % 2 === 0 ? api : consoleApp;
          await victim.kill('SIGKILL');
          await victim.start();
        }
        await new Promise((r) => setTimeout(r, INTERVAL_MS / 2));
        running = false;
        await Promise.all(writers);
        const seconds = (performance.now() - started) / 1000;
        await api.kill('SIGTERM');
        await consoleApp.kill('SIGTERM');

        const lost = await missingFromDatabase(
          store === 'postgres'
            ? await openPostgresStore({ connectionString: database!.url })
            : await openSqliteStore({ file: join(dataDir, 'svc.sqlite') }),
          new AesGcmSealer(rootKey),
          acknowledged,
        );
        const reused =
          acknowledged.length - new Set(acknowledged.map((a) => `${a.key}@${a.version}`)).size;
        console.log(
          `kills on ${store}: ${KILLS} api + ${KILLS} console SIGKILLs in ${seconds.toFixed(1)} s; ` +
            `${acknowledged.length} writes acknowledged of ${attempts} attempted; ` +
            `${lost.length} lost, ${reused} versions reused`,
        );
        expect(acknowledged.length).toBeGreaterThan(KILLS * 10);
        expect(lost).toStrictEqual([]);
        expect(reused).toBe(0);
      },
      30_000 + KILLS * 2 * (INTERVAL_MS + 15_000),
    );
  });
}

/** The acknowledged writes whose version is not in the database with the value written. */
async function missingFromDatabase(
  store: Store,
  sealer: AesGcmSealer,
  acknowledged: Acknowledged[],
): Promise<Acknowledged[]> {
  try {
    const ws = (await store.findWorkspaceBySlug('acme'))!;
    const project = (await store.findProject(ws.id, 'web'))!;
    const scope = { projectId: project.id, serviceId: null };
    const stored = new Map<string, string>();
    for (const key of new Set(acknowledged.map((a) => a.key))) {
      for (const version of await store.listSecretVersions(scope, key)) {
        stored.set(`${key}@${version.version}`, openSecret(sealer, scope, version));
      }
    }
    return acknowledged.filter((a) => stored.get(`${a.key}@${a.version}`) !== a.value);
  } finally {
    await store.close();
  }
}
