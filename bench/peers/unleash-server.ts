/**
 * Unleash's own server (`unleash-server` from npm: Node, Express, PostgreSQL), installed with
 * npm into a cache outside the repository, run on a PostgreSQL of its own and seeded through
 * its admin API with the bench's 50 flags, as Unleash Edge serves them offline.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startThrowawayServer } from '@svc/storage-postgres/testing';
import { freePort, httpCall } from '@svc/testkit';
import { BENCH_CACHE, EDGE_TOKEN } from './unleash-edge.ts';
import { unleashFeatures } from './unleash-features.ts';

/**
 * The newest release the registry has that runs on this repository's Node 20 (7.6.5 and 8.x
 * want Node 22), with its default settings (client features cached in memory per ETag).
 */
export const UNLEASH_SERVER_VERSION = '7.5.1';
/** The same client token as Edge's: every project, the development environment. */
export const UNLEASH_CLIENT_TOKEN = EDGE_TOKEN;
const ADMIN_TOKEN = '*:*.benchadminbenchadminbenchadminbenchadmin';

/** The package's folder, installed with npm on first use (or when the version changed). */
export function requireUnleashServer(): string {
  const root = join(BENCH_CACHE, 'unleash-server');
  const installed = join(root, 'node_modules', 'unleash-server');
  const manifest = join(installed, 'package.json');
  const version = existsSync(manifest)
    ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
    : undefined;
  if (version !== UNLEASH_SERVER_VERSION) {
    console.log(`installing unleash-server ${UNLEASH_SERVER_VERSION} into ${root} (npm; once)…`);
    mkdirSync(root, { recursive: true });
    writeFileSync(
      join(root, 'package.json'),
      JSON.stringify({
        name: 'svc-bench-unleash-server',
        private: true,
        dependencies: { 'unleash-server': UNLEASH_SERVER_VERSION },
      }),
    );
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--omit=dev'], {
      cwd: root,
      stdio: 'inherit',
      // Scarf (a dependency) reports installs from a postinstall script unless told not to.
      env: { ...process.env, SCARF_ANALYTICS: 'false' },
    });
  }
  return installed;
}

/**
 * The server on `port` over the database at `databaseUrl`, with an admin and a client token
 * made at start, and nothing sent anywhere (no version check, no telemetry).
 */
function startUnleashServer(port: number, databaseUrl: string): ChildProcess {
  const dir = requireUnleashServer();
  return spawn(process.execPath, [join(dir, 'dist', 'server.js')], {
    cwd: dir,
    env: {
      ...process.env,
      TZ: 'UTC',
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      DATABASE_SSL: 'false',
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: String(port),
      INIT_ADMIN_API_TOKENS: ADMIN_TOKEN,
      INIT_BACKEND_API_TOKENS: UNLEASH_CLIENT_TOKEN,
      CHECK_VERSION: 'false',
      SEND_TELEMETRY: 'false',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', process.env.BENCH_LOG_LEVEL ? 'inherit' : 'ignore', 'inherit'],
  });
}

/** A running Unleash server with the 50 flags, and how to stop it and its database. */
export interface UnleashPeer {
  port: number;
  stop(): Promise<void>;
}

/**
 * PostgreSQL in a temp folder (as the storage tests' throwaway server), the server on it,
 * seeded. `pin` is given the pid of each of them before the server connects (PostgreSQL's
 * backends are forked from the listening postmaster, so they inherit its CPU affinity).
 */
export async function startUnleashPeer(pin: (pid: number) => void): Promise<UnleashPeer> {
  const started = await startThrowawayServer();
  if (!started.server) {
    throw new Error(`Unleash's server needs PostgreSQL: ${started.reason} (or pass --no-unleash)`);
  }
  const database = started.server;
  let server: ChildProcess | undefined;
  const stop = async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
    await database.destroy();
  };
  try {
    pin(listenerPid(Number(new URL(database.url).port)));
    const port = await freePort();
    server = startUnleashServer(port, database.url);
    pin(server.pid!);
    await waitHealthy(port);
    await seedUnleashServer(port);
    return { port, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The pid of the process listening on a loopback TCP port (`ss`, from iproute2). */
function listenerPid(port: number): number {
  const out = execFileSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(out)?.[1];
  if (!pid) throw new Error(`no process found listening on port ${port}: ${out}`);
  return Number(pid);
}

/** Migrations on an empty database take several seconds (more on a loaded machine). */
async function waitHealthy(port: number): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const res = await httpCall(port, 'GET', '/health').catch(() => undefined);
    if (res?.status === 200) return;
    if (Date.now() > deadline) throw new Error(`unleash-server never became healthy on ${port}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface UnleashFeature {
  name: string;
  type: string;
  description: string;
  enabled: boolean;
  impressionData: boolean;
  strategies: { name: string; constraints: unknown[]; parameters: Record<string, string> }[];
}

/**
 * Creates the 50 flags of `unleashFeatures()` in the default project through the admin API:
 * each flag, its strategy in `development`, and `development` switched on for the enabled ones.
 */
async function seedUnleashServer(port: number): Promise<void> {
  const admin = async (path: string, body?: unknown) => {
    const res = await httpCall(port, 'POST', `/api/admin/projects/default${path}`, {
      headers: { authorization: ADMIN_TOKEN },
      body,
    });
    if (res.status >= 300) throw new Error(`unleash-server ${path}: ${res.status} ${res.text}`);
  };
  const { features } = unleashFeatures() as { features: UnleashFeature[] };
  for (const feature of features) {
    const { name, type, description, impressionData } = feature;
    await admin('/features', { name, type, description, impressionData });
    const environment = `/features/${name}/environments/development`;
    for (const { name: strategy, constraints, parameters } of feature.strategies) {
      await admin(`${environment}/strategies`, { name: strategy, constraints, parameters });
    }
    if (feature.enabled) await admin(`${environment}/on`);
  }
}
