import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, requirePostgres, type TestDatabase } from '../src/testing.ts';

/** The server from PG_URL; undefined (and the tests skipped) only outside CI. */
export const { server } = await requirePostgres();

/** A database of this test file's own, created before its tests and dropped after them. */
export function fileDatabase(): () => TestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (server) database = await createTestDatabase(server);
  });
  afterAll(async () => {
    await database?.drop();
  });
  return () => {
    if (!database) throw new Error('no test database');
    return database;
  };
}
