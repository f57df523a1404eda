/**
 * Every target (app, OpenAPI file) fuzzed by schemathesis against a live app, on SQLite and, when
 * a server is there (always on CI), on PostgreSQL: no server error, no answer outside its schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requirePostgres } from '@svc/storage-postgres/testing';
import { ensureSchemathesis, fuzz, startFixture, TARGETS, type Fixture } from '../src/index.ts';

const { server } = await requirePostgres();
const storages: Array<
  [string, () => Promise<{ env: Record<string, string>; drop?: () => Promise<void> }>]
> = [['sqlite', async () => ({ env: {} })]];
if (server) {
  storages.push([
    'postgres',
    async () => {
      const db = await createTestDatabase(server);
      return { env: { DATABASE_URL: db.url }, drop: db.drop };
    },
  ]);
}

// A first run installs schemathesis into tools/fuzz/.venv (about a minute), later runs reuse it.
beforeAll(() => ensureSchemathesis(), 600_000);

describe.each(storages)('fuzzing on %s', { timeout: 900_000 }, (storageName, storage) => {
  let fixture: Fixture;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const made = await storage();
    drop = made.drop;
    fixture = await startFixture(made.env);
  }, 120_000);
  afterAll(async () => {
    await fixture?.stop();
    await drop?.();
  });

  it.each(TARGETS)('$name: no server error, no schema violation', async (target) => {
    const result = await fuzz(target, fixture, `${target.name}-${storageName}`);
    console.log(`${target.name} on ${storageName}: ${result.cases}`);
    const serverErrors = fixture
      .logs()
      .split('\n')
      .filter((line) => line.includes('"level":50'));
    expect(serverErrors, 'errors the apps logged').toEqual([]);
    expect(result.ok, `${result.output}\n(JUnit report: ${result.report})`).toBe(true);
  });
});
