import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '@svc/storage-postgres';
import {
  createTestDatabase,
  requirePostgres,
  type TestDatabase,
} from '@svc/storage-postgres/testing';
import { SqliteStore } from '@svc/storage-sqlite';
import { loadSettings } from '../src/settings.ts';
import { describePostgres, openStorage, type Storage } from '../src/storage.ts';

const { server } = await requirePostgres();

describe('openStorage', () => {
  it('opens SQLite in DATA_DIR by default, with an in-memory write limit', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-runtime-'));
    const storage = await openStorage(loadSettings({ DATA_DIR: dataDir }));
    try {
      expect(storage.store).toBeInstanceOf(SqliteStore);
      expect(storage.describe).toBe(`sqlite:${join(dataDir, 'svc.sqlite')}`);
      const limiter = storage.writeRateLimiter({ max: 1, windowSeconds: 60 });
      expect(await limiter.consume('k')).toStrictEqual({ allowed: true });
      expect(await limiter.consume('k')).toMatchObject({ allowed: false });
    } finally {
      await storage.store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('names a PostgreSQL database without its credentials', () => {
    expect(describePostgres('postgres://svc:secret@db.internal:5433/svc?sslmode=require')).toBe(
      'postgres://db.internal:5433/svc',
    );
  });

  describe.skipIf(!server)('with DATABASE_URL=postgres://…', () => {
    let database: TestDatabase | undefined;
    const opened: Storage[] = [];
    const open = async () => {
      const storage = await openStorage(loadSettings({ DATABASE_URL: database!.url }));
      opened.push(storage);
      return storage;
    };

    beforeAll(async () => {
      database = await createTestDatabase(server!);
    });

    afterAll(async () => {
      for (const storage of opened) await storage.store.close();
      await database?.drop();
    });

    it('opens PostgreSQL', async () => {
      const storage = await open();
      expect(storage.store).toBeInstanceOf(PostgresStore);
      expect(storage.describe).toBe(describePostgres(database!.url));
      expect(storage.describe).not.toContain('@');
    });

    it('counts the write limit in the database, across instances', async () => {
      const [one, two] = await Promise.all([open(), open()]);
      const limit = { max: 3, windowSeconds: 60 };
      const a = one.writeRateLimiter(limit);
      const b = two.writeRateLimiter(limit);
      const results = [
        await a.consume('key-1'),
        await b.consume('key-1'),
        await a.consume('key-1'),
        await b.consume('key-1'),
        await a.consume('key-2'),
      ];
      expect(results.map((r) => r.allowed)).toStrictEqual([true, true, true, false, true]);
      const refused = results[3]!;
      expect(refused.allowed || refused.retryAfterSeconds).toBeGreaterThan(50);
    });
  });
});
