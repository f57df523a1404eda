import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@svc/testkit';
import { httpCall, startHarness, type Harness } from './harness.ts';

let h: Harness;
let sk: string;
let pk: string;
const P = '/workspaces/acme/projects/web';

const evaluate = (body: unknown, key = sk) =>
  httpCall(h.api.port, 'POST', '/acme/v1/flags/evaluate-ab', {
    headers: { 'x-service-api-key': key },
    body,
  });

beforeAll(async () => {
  h = await startHarness();
  await h.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await h.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  await h.admin('PUT', `${P}/flags/pro.only`, {
    is_active: true,
    rollout_percentage: 0,
    rules: [{ conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], result: true }],
  });
  await h.admin('PUT', `${P}/flags/everyone`, { is_active: true });
  await h.admin('PUT', `${P}/flags/switched.off`, { is_active: false });
  await h.admin('PUT', `${P}/flags/half`, {
    is_active: true,
    rollout_percentage: 50,
    salt: 'exp-42',
  });
  sk = await h.createKey('web', 'secret');
  pk = await h.createKey('web', 'public');
  await h.syncUntil(pk, () => true);
  await h.syncUntil(sk, () => true);
}, 30_000);

afterAll(() => h?.stop());

describe('POST /v1/flags/evaluate-ab', () => {
  it('is 403 ab_addon_inactive while the add-on is off, then evaluates', async () => {
    const off = await evaluate({ flags: ['everyone'], user_id: 'u-1' });
    expect(off.status).toBe(403);
    expect(off.json().code).toBe('ab_addon_inactive');
    await h.admin('PATCH', P, { ab_testing: true });
    await waitFor(
      async () => (await evaluate({ flags: ['everyone'], user_id: 'u-1' })).status === 200,
    );
  });

  it('answers every requested key, rules first, then the sticky rollout', async () => {
    const res = await evaluate({
      flags: ['pro.only', 'everyone', 'switched.off', 'unknown.flag', 'half'],
      user_id: 'acct_665610',
      attributes: { plan: 'pro', country: 'DE' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    // acct_665610 with salt exp-42 falls in bucket 50.61 (shared vectors): outside a 50% rollout.
    expect(res.json()).toEqual({
      results: {
        'pro.only': true,
        everyone: true,
        'switched.off': false,
        'unknown.flag': false,
        half: false,
      },
    });
    const free = await evaluate(
      { flags: ['pro.only'], user_id: 'u-2', attributes: { plan: 'free' } },
      pk,
    );
    expect(free.json()).toEqual({ results: { 'pro.only': false } });
    const again = await evaluate({ flags: ['half'], user_id: 'acct_665610' });
    expect(again.json().results.half).toBe(false);
  });

  it('names the failing field of a bad request with 400', async () => {
    const cases: Array<[unknown, string]> = [
      [{ user_id: 'u' }, 'flags'],
      [{ flags: [], user_id: 'u' }, 'flags'],
      [{ flags: Array.from({ length: 101 }, (_, i) => `f${i}`), user_id: 'u' }, 'flags'],
      [{ flags: ['ok', 7], user_id: 'u' }, 'flags[1]'],
      [{ flags: ['ok'] }, 'user_id'],
      [{ flags: ['ok'], user_id: '' }, 'user_id'],
      [{ flags: ['ok'], user_id: 'x'.repeat(257) }, 'user_id'],
      [{ flags: ['ok'], user_id: 'u', attributes: [] }, 'attributes'],
      [
        {
          flags: ['ok'],
          user_id: 'u',
          attributes: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`a${i}`, i])),
        },
        'attributes',
      ],
      [[1, 2], 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await evaluate(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(res.json()).toMatchObject({ code: 'invalid_request', field });
    }
    const notJson = await httpCall(h.api.port, 'POST', '/acme/v1/flags/evaluate-ab', {
      headers: { 'x-service-api-key': sk },
      rawBody: 'flags=a',
    });
    expect(notJson.json()).toMatchObject({ status: 400, field: 'body' });
  });

  it('answers 413 over the body limit, 401 to a bad key and 404 to an unknown workspace', async () => {
    const huge = await evaluate({
      flags: ['a'],
      user_id: 'u',
      attributes: { blob: 'x'.repeat(1024 * 1024) },
    });
    expect(huge.status).toBe(413);
    expect(huge.json().code).toBe('payload_too_large');
    expect(
      (
        await evaluate(
          { flags: ['a'], user_id: 'u' },
          'svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN',
        )
      ).status,
    ).toBe(401);
    const unknown = await httpCall(h.api.port, 'POST', '/nope/v1/flags/evaluate-ab', {
      headers: { 'x-service-api-key': sk },
      body: { flags: ['a'], user_id: 'u' },
    });
    expect(unknown.status).toBe(404);
  });

  it('answers 402 while billing is overdue', async () => {
    await h.admin('PATCH', '/workspaces/acme', { billing_status: 'overdue' });
    await waitFor(
      async () => (await evaluate({ flags: ['everyone'], user_id: 'u' })).status === 402,
    );
    expect((await evaluate({ flags: ['everyone'], user_id: 'u' })).json().code).toBe(
      'billing_overdue',
    );
    await h.admin('PATCH', '/workspaces/acme', { billing_status: 'ok' });
    await waitFor(
      async () => (await evaluate({ flags: ['everyone'], user_id: 'u' })).status === 200,
    );
  });

  it('sees targeting edits at once even though the snapshot bytes do not change', async () => {
    await h.admin('PUT', `${P}/flags/everyone`, { is_active: true, rollout_percentage: 0 });
    await waitFor(
      async () =>
        (await evaluate({ flags: ['everyone'], user_id: 'u' })).json().results?.everyone === false,
    );
  });
});
