/**
 * For tests that need a real PostgreSQL: `PG_URL` names a server (any database on it; the
 * user may create databases). Each test file gets a database of its own, dropped at the end.
 * With `CI` set, a missing or unreachable server fails the tests instead of skipping them.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface TestServer {
  /** PG_URL, checked to answer. */
  url: string;
}

export type ServerProbe = { server: TestServer } | { server: undefined; reason: string };

/**
 * Checks that PG_URL answers. Without CI a missing server is a skip (with a message saying
 * how to get one); with CI it throws, so the test file fails.
 */
export async function requirePostgres(env: NodeJS.ProcessEnv = process.env): Promise<ServerProbe> {
  const url = env.PG_URL;
  let reason: string | undefined;
  if (!url) {
    reason = 'PG_URL is not set';
  } else {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.query('select 1');
      return { server: { url } };
    } catch (error) {
      reason = `PostgreSQL at PG_URL does not answer: ${(error as Error).message}`;
    } finally {
      await client.end().catch(() => {});
    }
  }
  if (env.CI && !['0', 'false'].includes(env.CI.toLowerCase())) {
    throw new Error(`CI is set, so the PostgreSQL tests must run, but ${reason}`);
  }
  console.warn(
    `skipping the PostgreSQL tests: ${reason}. ` +
      'Set PG_URL=postgres://user@host:port/db, or run `bash scripts/dev.sh test`, which starts a throwaway server.',
  );
  return { server: undefined, reason };
}

export interface TestDatabase {
  /** The connection string of the new database. */
  url: string;
  name: string;
  /** Drops the database, ending any connection still open on it. */
  drop(): Promise<void>;
}

/**
 * Creates `svc_test_<random>` on the server; `options` is appended to `create database` (e.g.
 * `template template0 locale_provider icu icu_locale 'en-US'`).
 */
export async function createTestDatabase(server: TestServer, options = ''): Promise<TestDatabase> {
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  await onServer(server.url, (client) => client.query(`create database ${name} ${options}`));
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      onServer(server.url, (client) =>
        client.query(`drop database if exists ${name} with (force)`),
      ),
  };
}

async function onServer(url: string, fn: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}

/** Where an app under test keeps its data: settings to start it with, and how to clean up. */
export interface TestStore {
  name: 'SQLite' | 'PostgreSQL';
  /** Environment for the app's settings (nothing for SQLite in its DATA_DIR, DATABASE_URL else). */
  prepare(): Promise<{ env: Record<string, string>; drop(): Promise<void> }>;
}

/**
 * The stores an app test runs on: embedded SQLite always, and PostgreSQL when `PG_URL` answers
 * (always on CI, see requirePostgres), each in a database of its own.
 */
export async function testStores(env: NodeJS.ProcessEnv = process.env): Promise<TestStore[]> {
  const { server } = await requirePostgres(env);
  const stores: TestStore[] = [
    { name: 'SQLite', prepare: async () => ({ env: {}, drop: async () => {} }) },
  ];
  if (server) {
    stores.push({
      name: 'PostgreSQL',
      async prepare() {
        const db = await createTestDatabase(server);
        return { env: { DATABASE_URL: db.url }, drop: db.drop };
      },
    });
  }
  return stores;
}

/** A PostgreSQL server of a test's own, which it may stop and start (see `startThrowawayServer`). */
export interface ThrowawayServer extends TestServer {
  /** Stops the server (`fast`: ends every session, as an administrator's restart does). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  destroy(): Promise<void>;
}

/**
 * Where the server binaries are: PG_BIN, else `pg_config --bindir`, else the newest
 * /usr/lib/postgresql/N/bin; undefined when there are none.
 */
export function findPostgresBinaries(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [env.PG_BIN];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim());
  } catch {
    // no pg_config on the PATH
  }
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => join(debian, v, 'bin')));
  }
  return candidates.find((dir) => dir !== undefined && existsSync(join(dir, 'initdb')));
}

/**
 * A fresh cluster in a temp folder on a free loopback port, as `scripts/dev.sh test` makes one
 * (initdb, trust authentication on loopback, durability off): for tests that stop and start
 * the server, which must not disturb the shared one at PG_URL. As root it runs as `postgres`
 * (PostgreSQL refuses to run as root). Without the binaries: a skip, or a failure with CI set.
 */
export async function startThrowawayServer(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ server: ThrowawayServer } | { server: undefined; reason: string }> {
  const bin = findPostgresBinaries(env);
  if (!bin) {
    const reason = 'the PostgreSQL server binaries (initdb, pg_ctl) are not installed';
    if (env.CI && !['0', 'false'].includes(env.CI.toLowerCase())) {
      throw new Error(`CI is set, so the PostgreSQL fault tests must run, but ${reason}`);
    }
    console.warn(`skipping the PostgreSQL fault tests: ${reason}`);
    return { server: undefined, reason };
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-faults-'));
  const asOwner: string[] = [];
  if (process.getuid?.() === 0) {
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), 0);
    asOwner.push('runuser', '-u', 'postgres', '--');
  }
  const run = (tool: string, args: string[]): Promise<void> =>
    new Promise((resolve, reject) => {
      const [command, ...prefix] = [...asOwner, join(bin, tool)];
      execFile(command!, [...prefix, ...args], (error, _stdout, stderr) =>
        error ? reject(new Error(`${tool} failed: ${stderr || error.message}`)) : resolve(),
      );
    });
  const data = join(dir, 'data');
  const port = await freeLoopbackPort();
  await run('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  const options = [
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=100`,
    '-c fsync=off -c synchronous_commit=off -c full_page_writes=off',
  ].join(' ');
  const start = () =>
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      options,
      'start',
    ]);
  const stop = (mode: 'fast' | 'immediate' = 'fast') =>
    run('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
  await start();
  return {
    server: {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      stop,
      start,
      async destroy() {
        await stop('immediate').catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    },
  };
}

async function freeLoopbackPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
