/**
 * Every target (app, OpenAPI file) fuzzed by schemathesis against live apps of its own, on SQLite
 * and, when a server is there (always on CI), on PostgreSQL: no server error, no answer outside
 * its schema. Each target gets fresh apps and data: what one fuzzer changes (a workspace's
 * billing turned overdue, say) must not decide another's answers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { testStores } from '@svc/storage-postgres/testing';
import { ensureSchemathesis, fuzz, startFixture, TARGETS } from '../src/index.ts';

const stores = await testStores();

// A first run installs schemathesis into tools/fuzz/.venv (about a minute), later runs reuse it.
beforeAll(() => ensureSchemathesis(), 600_000);

describe.each(stores)('fuzzing on $name', { timeout: 900_000 }, (store) => {
  it.each(TARGETS)('$name: no server error, no schema violation', async (target) => {
    const prepared = await store.prepare();
    const fixture = await startFixture(prepared.env);
    try {
      const result = await fuzz(target, fixture, `${target.name}-${store.name}`);
      console.log(`${target.name} on ${store.name}: ${result.cases}; links ${result.links}`);
      const serverErrors = fixture
        .logs()
        .split('\n')
        .filter((line) => line.includes('"level":50'));
      expect(serverErrors, 'errors the apps logged').toEqual([]);
      expect(result.ok, `${result.output}\n(JUnit report: ${result.report})`).toBe(true);
    } finally {
      await fixture.stop();
      await prepared.drop();
    }
  });
});
