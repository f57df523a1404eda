/**
 * The OFREP bulk path on PostgreSQL: the real console and api over one database of their own
 * (PG_URL's server), changes crossing LISTEN/NOTIFY. Bulk answers equal evaluate-ab, 304 for an
 * unchanged view and context, a new answer once a console change arrives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@svc/testkit';
import {
  createTestDatabase,
  requirePostgres,
  type TestDatabase,
} from '@svc/storage-postgres/testing';
import { httpCall, startHarness, type Harness } from './harness.ts';

const { server } = await requirePostgres();
let database: TestDatabase | undefined;
let h: Harness;
let sk: string;
const P = '/workspaces/acme/projects/web';

function bulk(context: object, etag?: string) {
  return httpCall(h.api.port, 'POST', '/acme/ofrep/v1/evaluate/flags', {
    headers: { 'x-api-key': sk, ...(etag ? { 'if-none-match': etag } : {}) },
    body: { context },
  });
}

describe.runIf(server)('OFREP bulk evaluation on PostgreSQL', () => {
  beforeAll(async () => {
    database = await createTestDatabase(server!);
    h = await startHarness({ DATABASE_URL: database.url });
    await h.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
    await h.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
    await h.admin('PATCH', P, { ab_testing: true });
    await h.admin('PUT', `${P}/flags/half`, { is_active: true, rollout_percentage: 50 });
    await h.admin('PUT', `${P}/flags/beta`, {
      is_active: true,
      rollout_percentage: 10,
      rules: [
        { conditions: [{ attribute: 'plan', operator: 'eq', values: ['pro'] }], result: true },
      ],
    });
    await h.admin('PUT', `${P}/configs/limits`, { value: { rps: 40 }, is_public: false });
    sk = await h.createKey('web', 'secret');
    await h.syncUntil(sk, (body) => body.configs.limits !== undefined);
  }, 60_000);

  afterAll(async () => {
    await h?.stop();
    await database?.drop();
  });

  it('evaluates every flag as evaluate-ab does, configs typed, with 304s', async () => {
    for (let i = 0; i < 10; i++) {
      const context = { targetingKey: `pg-user-${i}`, plan: i % 3 === 0 ? 'pro' : 'free' };
      const res = await bulk(context);
      expect(res.status).toBe(200);
      const flags = Object.fromEntries(res.json().flags.map((f: any) => [f.key, f]));
      const ab = await httpCall(h.api.port, 'POST', '/acme/v1/flags/evaluate-ab', {
        headers: { 'x-service-api-key': sk },
        body: { flags: ['half', 'beta'], user_id: context.targetingKey, attributes: context },
      });
      expect(flags['half'].value).toBe(ab.json().results.half);
      expect(flags['beta'].value).toBe(ab.json().results.beta);
      expect(flags['limits'].value).toEqual({ rps: 40 });
      const again = await bulk(context, res.headers.etag as string);
      expect(again.status).toBe(304);
    }
  });

  it('answers 200 with a new ETag once a console change arrives', async () => {
    const context = { targetingKey: 'pg-user-x' };
    const before = await bulk(context);
    await h.admin('PUT', `${P}/configs/limits`, { value: { rps: 80 }, is_public: false });
    await waitFor(async () => (await bulk(context, before.headers.etag as string)).status === 200);
    const after = await bulk(context);
    expect(after.json().flags.find((f: any) => f.key === 'limits').value).toEqual({ rps: 80 });
  });
});
