import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { describeStoreContract } from '@svc/storage-contract';
import type { Change, Scope } from '@svc/domain';
import { openSqliteStore, type SqliteStore } from '../src/index.ts';
import { tempDatabase } from './temp-database.ts';

describeStoreContract('sqlite', async ({ clock }) => {
  const db = tempDatabase();
  const store = await openSqliteStore({ file: db.file, clock });
  const raw = new BetterSqlite3(db.file, { readonly: true });
  return {
    store,
    feed: (options) =>
      store.changeFeed(
        options?.passive
          ? { watch: false, pollIntervalMs: Infinity, catchUpIntervalMs: Infinity }
          : {},
      ),
    openAnother: () => openSqliteStore({ file: db.file, clock }),
    rawRows: async (sql) => raw.prepare(sql).all() as Record<string, unknown>[],
    cleanup: async () => {
      raw.close();
      await store.close();
      db.remove();
    },
  };
});

describe('SqliteStore on one file from two connections', () => {
  const opened: SqliteStore[] = [];
  let removeDb = (): void => {};

  const open = async (file: string): Promise<SqliteStore> => {
    const store = await openSqliteStore({ file });
    opened.push(store);
    return store;
  };

  const setUp = async () => {
    const db = tempDatabase();
    removeDb = db.remove;
    const [a, b] = await Promise.all([open(db.file), open(db.file)]);
    const { project } = await a.transaction(async (tx) => {
      const ws = await tx.insertWorkspace({ slug: 'acme', name: 'Acme' });
      return { project: await tx.insertProject({ workspaceId: ws.id, slug: 'p', name: 'P' }) };
    });
    const scope: Scope = { projectId: project.id, serviceId: null };
    return { file: db.file, a, b, scope };
  };

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    removeDb();
  });

  it('creates the schema once when two stores open a new file at the same time', async () => {
    const { file, a, b } = await setUp();
    expect(await b.findWorkspaceBySlug('acme')).toBeDefined();
    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      const applied = raw.prepare('select name from kysely_migration order by name').all();
      expect(applied).toHaveLength(12);
    } finally {
      raw.close();
    }
    await a.close();
    const reopened = await open(file);
    expect(await reopened.findWorkspaceBySlug('acme')).toBeDefined();
  });

  it('enforces foreign keys', async () => {
    const { a } = await setUp();
    await expect(
      a.transaction((tx) => tx.insertProject({ workspaceId: 'no-such-id', slug: 'x', name: 'X' })),
    ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
  });

  it('lets both write concurrently without SQLITE_BUSY, in one gapless order', async () => {
    const { a, b, scope } = await setUp();
    const seqBefore = await a.lastChangeSeq();
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) =>
        (i % 2 ? a : b).transaction((tx) =>
          tx.putConfig(scope, { key: `k${i % 7}`, valueJson: String(i), isPublic: false }),
        ),
      ),
    );
    expect(results.filter((r) => r.status === 'rejected')).toStrictEqual([]);
    const log = await b.changesAfter(seqBefore, 1000);
    expect(log.map((c) => c.seq)).toStrictEqual(
      Array.from({ length: 200 }, (_, i) => seqBefore + 1 + i),
    );
    expect(log.map((c) => c.revision)).toStrictEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('waits for the other write lock without blocking the event loop', async () => {
    const { a, b, scope } = await setUp();
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked = (): void => {};
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const first = a.transaction(async (tx) => {
      await tx.putConfig(scope, { key: 'x', valueJson: '1', isPublic: false });
      locked();
      await held;
    });
    await isLocked;
    const second = b.transaction((tx) =>
      tx.putConfig(scope, { key: 'x', valueJson: '2', isPublic: false }),
    );
    // A timer still fires while `second` waits for the lock that `first` holds.
    const ticked = await new Promise<number>((resolve) => {
      const start = Date.now();
      setTimeout(() => resolve(Date.now() - start), 20);
    });
    expect(ticked).toBeLessThan(500);
    release();
    const [, change] = await Promise.all([first, second]);
    expect(change.revision).toBe(2);
    expect((await a.listConfigs(scope))[0]?.valueJson).toBe('2');
  });

  it.each([
    ['by default (doorbell and a 20 ms poll)', {}],
    // No poll and no catch-up: only the bell the other store rings can wake the feed.
    ['through the doorbell alone', { pollIntervalMs: Infinity, catchUpIntervalMs: Infinity }],
    // A folder that cannot be watched: the feed polls every millisecond instead.
    ['by polling alone', { watch: false }],
  ])("notices the other store's commits within a few milliseconds %s", async (_, options) => {
    const { a, b, scope } = await setUp();
    const received = new Map<number, number>();
    const feed = a.changeFeed(options);
    await feed.follow(await a.lastChangeSeq(), (changes: Change[]) => {
      for (const change of changes) received.set(change.seq, Date.now());
    });
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const change = await b.transaction((tx) =>
        tx.putConfig(scope, { key: 'k', valueJson: String(i), isPublic: false }),
      );
      const committed = Date.now();
      await expect
        .poll(() => received.get(change.seq), { interval: 1, timeout: 1000 })
        .toBeDefined();
      latencies.push((received.get(change.seq) ?? Infinity) - committed);
    }
    latencies.sort((x, y) => x - y);
    expect(latencies[5]).toBeLessThan(20);
  });
});
