/**
 * What the contract suite cannot see: migrations racing, the schema matching SQLite's, the
 * listening connection dying, a notification that never came, pooled connections killed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConflictError, StorageUnavailableError, type Change, type Scope } from '@svc/domain';
import { openSqliteStore } from '@svc/storage-sqlite';
import { openPostgresStore, type PostgresStore } from '../src/index.ts';
import { createTestDatabase } from '../src/testing.ts';
import { fileDatabase, server } from './test-database.ts';

const database = fileDatabase();
let schemas = 0;
const opened: PostgresStore[] = [];
const clients: pg.Client[] = [];

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const client of clients.splice(0)) await client.end().catch(() => {});
});

async function open(schema: string, onConnectionError?: (error: Error) => void) {
  const store = await openPostgresStore({
    connectionString: database().url,
    schema,
    maxConnections: 3,
    ...(onConnectionError ? { onConnectionError } : {}),
  });
  opened.push(store);
  return store;
}

/** A plain connection to the test database (superuser: may terminate backends). */
async function rawClient(schema?: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: database().url,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  await client.connect();
  clients.push(client);
  return client;
}

async function seeded(store: PostgresStore): Promise<Scope> {
  const project = await store.transaction(async (tx) => {
    const ws = await tx.insertWorkspace({ slug: 'acme', name: 'Acme' });
    return tx.insertProject({ workspaceId: ws.id, slug: 'p', name: 'P' });
  });
  return { projectId: project.id, serviceId: null };
}

const put = (store: PostgresStore, scope: Scope, key: string) =>
  store.transaction((tx) => tx.putConfig(scope, { key, valueJson: '1', isPublic: false }));

/** Ends the backends of the test database whose application_name is `name`. */
async function terminate(admin: pg.Client, name: string): Promise<number> {
  const { rows } = await admin.query<{ pid: number }>(
    `select pg_terminate_backend(pid) as pid from pg_stat_activity
      where datname = current_database() and application_name = $1 and pid <> pg_backend_pid()`,
    [name],
  );
  return rows.length;
}

describe.skipIf(!server)('PostgresStore', () => {
  it('migrates a fresh schema once when several stores open it at the same time', async () => {
    const schema = `race_${++schemas}`;
    const stores = await Promise.all([open(schema), open(schema), open(schema), open(schema)]);
    await seeded(stores[0]!);
    expect(await stores[3]!.findWorkspaceBySlug('acme')).toBeDefined();
    const raw = await rawClient(schema);
    const { rows } = await raw.query('select name from kysely_migration order by name');
    expect(rows).toHaveLength(12);
  });

  it('has the tables and columns of the SQLite schema (plus audit.pos)', async () => {
    const schema = `parity_${++schemas}`;
    await open(schema);
    const introspect = new Kysely<unknown>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: database().url, max: 1 }),
      }),
    });
    const tables = (await introspect.introspection.getTables()).filter(
      (t) => t.schema === schema && !t.name.startsWith('kysely_'),
    );
    await introspect.destroy();
    const pgTypes: Record<string, string> = { int8: 'bigint', int4: 'integer', text: 'text' };
    const postgres = Object.fromEntries(
      tables.map((t) => [
        t.name,
        t.columns
          .filter((c) => !(t.name === 'audit' && c.name === 'pos'))
          .map(
            (c) =>
              `${c.name} ${pgTypes[c.dataType] ?? c.dataType}${c.isNullable ? '' : ' not null'}`,
          )
          .sort(),
      ]),
    );

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-parity-'));
    try {
      const file = path.join(dir, 'svc.db');
      await (await openSqliteStore({ file })).close();
      const sqlite = new BetterSqlite3(file, { readonly: true });
      const names = sqlite
        .prepare<[], { name: string }>(
          `select name from sqlite_master where type = 'table' and name not like 'kysely_%' and name not like 'sqlite_%'`,
        )
        .all();
      const columns = (table: string) =>
        sqlite
          .prepare<[], { name: string; type: string; notnull: number; pk: number }>(
            `select name, type, "notnull", pk from pragma_table_info('${table}')`,
          )
          .all()
          // A primary key column never holds NULL here (SQLite would let it, PostgreSQL not).
          .map((c) => `${c.name} ${c.type.toLowerCase()}${c.notnull || c.pk ? ' not null' : ''}`)
          .sort();
      const expected = Object.fromEntries(names.map(({ name }) => [name, columns(name)]));
      sqlite.close();
      expect(Object.keys(expected)).toHaveLength(11);
      expect(postgres).toStrictEqual(expected);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists in code-point order, as SQLite does, also on a database that collates en-US', async () => {
    const admin = await rawClient();
    const { rows } = await admin.query<{ v: string }>(
      `select current_setting('server_version_num') as v`,
    );
    if (Number(rows[0]!.v) < 150000) return; // ICU as a database's default collation: PostgreSQL 15+
    const english = await createTestDatabase(
      server!,
      `template template0 locale_provider icu icu_locale 'en-US'`,
    );
    try {
      const store = await openPostgresStore({ connectionString: english.url, maxConnections: 2 });
      opened.push(store);
      const scope = await seeded(store);
      const keys = ['b.x', 'B.y', 'a_1', 'a-1', 'A.z', 'a.1'];
      for (const key of keys) await put(store, scope, key);
      const binary = [...keys].sort();
      expect((await store.listConfigs(scope)).map((c) => c.key)).toStrictEqual(binary);
      const state = await store.loadProjectState(scope.projectId);
      expect(state?.configs.get('')?.map((c) => c.key)).toStrictEqual(binary);
      await store.close();
    } finally {
      await english.drop();
    }
  });

  it('keeps a transaction usable after a conflict it catches, as SQLite does', async () => {
    const store = await open(`conflict_${++schemas}`);
    await seeded(store);
    await store.transaction(async (tx) => {
      await expect(tx.insertWorkspace({ slug: 'acme', name: 'Again' })).rejects.toBeInstanceOf(
        ConflictError,
      );
      await tx.insertWorkspace({ slug: 'other', name: 'Other' });
    });
    expect((await store.listWorkspaces()).map((w) => w.slug)).toStrictEqual(['acme', 'other']);
    expect((await store.changesAfter(0, 10)).map((c) => c.key)).toStrictEqual([
      'acme',
      'p',
      'other',
    ]);
  });

  it('carries on when its idle pooled connections are terminated', async () => {
    const errors: Error[] = [];
    const store = await open(`killed_${++schemas}`, (error) => errors.push(error));
    const scope = await seeded(store);
    const admin = await rawClient();
    expect(await terminate(admin, 'svc')).toBeGreaterThan(0);
    await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0));
    await put(store, scope, 'after');
    expect((await store.listConfigs(scope)).map((c) => c.key)).toStrictEqual(['after']);
  });

  it('refuses a write whose connection is terminated mid-transaction as StorageUnavailableError, and carries on', async () => {
    const errors: Error[] = [];
    const store = await open(`cut_${++schemas}`, (error) => errors.push(error));
    const scope = await seeded(store);
    const admin = await rawClient();
    const write = store.transaction(async (tx) => {
      await tx.putConfig(scope, { key: 'lost', valueJson: '1', isPublic: false });
      // The connection is in use, between two statements, when the server ends it.
      expect(await terminate(admin, 'svc')).toBeGreaterThan(0);
      await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0));
      await tx.putConfig(scope, { key: 'lost.too', valueJson: '1', isPublic: false });
    });
    await expect(write).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(errors[0]?.message).toMatch(/terminating connection/);
    await put(store, scope, 'after');
    expect((await store.listConfigs(scope)).map((c) => c.key)).toStrictEqual(['after']);
  });

  it('reports a server it cannot reach as StorageUnavailableError', async () => {
    const store = await openPostgresStore({
      // Nothing listens there: every connection attempt is refused at once.
      connectionString: 'postgres://svc@127.0.0.1:1/svc',
      schema: 'unreachable',
    }).catch((error: unknown) => error);
    expect(store).toBeInstanceOf(StorageUnavailableError);
  });
});

describe.skipIf(!server)('PostgresChangeFeed', () => {
  const follow = async (
    store: PostgresStore,
    options: Parameters<PostgresStore['changeFeed']>[0],
  ) => {
    const received: Change[] = [];
    const feed = store.changeFeed(options);
    await feed.follow(await store.lastChangeSeq(), (changes) => {
      received.push(...changes);
    });
    return { feed, received, keys: () => received.map((c) => c.key) };
  };

  it('reconnects its listening connection and reads what it missed meanwhile', async () => {
    const schema = `reconnect_${++schemas}`;
    const errors: Error[] = [];
    const store = await open(schema, (error) => errors.push(error));
    const writer = await open(schema);
    const scope = await seeded(writer);
    // No periodic catch-up: only the read after reconnecting can find the missed change.
    const { feed, keys } = await follow(store, {
      catchUpIntervalMs: Infinity,
      minReconnectDelayMs: 400,
    });
    expect(feed.listening).toBe(true);

    const admin = await rawClient();
    expect(await terminate(admin, 'svc-change-feed')).toBe(1);
    await vi.waitFor(() => expect(feed.listening).toBe(false), { interval: 2 });
    // Committed while nobody listens: its notification is lost.
    await put(writer, scope, 'missed');
    await vi.waitFor(() => expect(keys()).toStrictEqual(['missed']), { timeout: 3000 });
    expect(errors.length).toBeGreaterThan(0);
    await vi.waitFor(() => expect(feed.listening).toBe(true));

    // Listening again: the next commit wakes it up within milliseconds.
    const started = Date.now();
    await put(writer, scope, 'notified');
    await vi.waitFor(() => expect(keys()).toStrictEqual(['missed', 'notified']), {
      interval: 2,
    });
    expect(Date.now() - started).toBeLessThan(250);
  });

  it('finds a change whose notification never came at the next catch-up read', async () => {
    const schema = `lost_${++schemas}`;
    const store = await open(schema);
    await seeded(store);
    const { keys } = await follow(store, { catchUpIntervalMs: 100 });
    // A change logged without NOTIFY, as if the notification were lost.
    const raw = await rawClient(schema);
    await raw.query('begin');
    const { rows } = await raw.query<{ value: string }>(
      `update counters set value = value + 1 where name = 'change_seq' returning value`,
    );
    await raw.query(
      `insert into changes (seq, workspace_id, kind, key, op, at) values ($1, 'w', 'workspace', 'silent', 'upsert', 0)`,
      [rows[0]!.value],
    );
    await raw.query('commit');
    const started = Date.now();
    await vi.waitFor(() => expect(keys()).toStrictEqual(['silent']), { timeout: 1000 });
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('notifies once per transaction, at commit, and not at all on rollback', async () => {
    const schema = `notify_${++schemas}`;
    const store = await open(schema);
    const scope = await seeded(store);
    const listener = await rawClient();
    const notifications: string[] = [];
    listener.on('notification', (n) => notifications.push(n.channel));
    await listener.query(`listen "svc_changes_${schema}"`);
    let inside = -1;
    await store.transaction(async (tx) => {
      await tx.putConfig(scope, { key: 'a', valueJson: '1', isPublic: false });
      await tx.putConfig(scope, { key: 'b', valueJson: '1', isPublic: false });
      await new Promise((r) => setTimeout(r, 50));
      inside = notifications.length;
    });
    await vi.waitFor(() => expect(notifications).toStrictEqual([`svc_changes_${schema}`]));
    expect(inside).toBe(0);
    await expect(
      store.transaction(async (tx) => {
        await tx.putConfig(scope, { key: 'c', valueJson: '1', isPublic: false });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await new Promise((r) => setTimeout(r, 50));
    expect(notifications).toHaveLength(1);
  });
});
