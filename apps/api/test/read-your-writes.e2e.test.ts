/**
 * Read-your-writes on one instance (contract v1.1): a secret write acknowledged by an api
 * instance is in that instance's very next sync, and its answer carries the change's revision.
 * On SQLite and on PostgreSQL, where the notification of a commit takes a round trip.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  requirePostgres,
  type TestDatabase,
} from '@svc/storage-postgres/testing';
import { httpCall, startHarness, type Harness } from './harness.ts';

const { server } = await requirePostgres();
const ROUNDS = 100;

function describeReadYourWrites(store: 'sqlite' | 'postgres'): void {
  describe.skipIf(store === 'postgres' && !server)(`on ${store}`, () => {
    let h: Harness;
    let database: TestDatabase | undefined;
    let sk = '';

    beforeAll(async () => {
      database = store === 'postgres' ? await createTestDatabase(server!) : undefined;
      h = await startHarness({
        WRITE_RATE_LIMIT_MAX: String(ROUNDS * 4),
        SYNC_QUARANTINE_MAX: String(ROUNDS * 4),
        ...(database ? { DATABASE_URL: database.url } : {}),
      });
      await h.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
      await h.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
      sk = await h.createKey('web', 'secret');
      await h.syncUntil(sk, () => true);
    }, 30_000);

    afterAll(async () => {
      await h?.stop();
      await database?.drop();
    });

    const write = (method: string, path: string, body?: unknown) =>
      httpCall(h.api.port, method, `/acme/v1/secrets/${path}`, {
        headers: { 'x-service-api-key': sk },
        body,
      });

    it(`serves each acknowledged write in the next sync, ${ROUNDS} rounds in a row`, async () => {
      const missed: string[] = [];
      let previous = 0;
      for (let i = 1; i <= ROUNDS; i++) {
        const written = await write('PUT', 'rw.token', { value: `v${i}` });
        expect(written.status).toBe(i === 1 ? 201 : 200);
        const { revision } = written.json();
        expect(revision).toBeGreaterThan(previous);
        previous = revision;
        const res = await h.sync(sk);
        const synced = res.json();
        if (synced.secrets?.['rw.token']?.value !== `v${i}` || synced.revision < revision) {
          missed.push(`round ${i}: ${res.status} revision ${synced.revision} < ${revision}`);
        }
      }
      expect(missed).toStrictEqual([]);
    }, 60_000);

    it('answers a delete with its revision, and the next sync no longer has the secret', async () => {
      await write('PUT', 'rw.gone', { value: 'a' });
      await write('PUT', 'rw.gone', { value: 'b' });
      const one = await write('DELETE', 'rw.gone/versions/2');
      expect(one.status).toBe(204);
      const afterOne = (await h.sync(sk)).json();
      expect(afterOne.secrets['rw.gone']).toMatchObject({ value: 'a', version: 1 });
      expect(afterOne.revision).toBe(Number(one.headers['x-revision']));

      const all = await write('DELETE', 'rw.gone');
      expect(all.status).toBe(204);
      const afterAll = (await h.sync(sk)).json();
      expect(afterAll.secrets['rw.gone']).toBeUndefined();
      expect(afterAll.revision).toBe(Number(all.headers['x-revision']));
    }, 30_000);
  });
}

describe('read-your-writes', () => {
  describeReadYourWrites('sqlite');
  describeReadYourWrites('postgres');
});
