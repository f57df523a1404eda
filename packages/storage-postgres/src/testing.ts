/**
 * For tests that need a real PostgreSQL: `PG_URL` names a server (any database on it; the
 * user may create databases). Each test file gets a database of its own, dropped at the end.
 * With `CI` set, a missing or unreachable server fails the tests instead of skipping them.
 */
import { randomBytes } from 'node:crypto';
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
