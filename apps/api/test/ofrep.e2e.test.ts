/**
 * OFREP single and bulk evaluation end to end: the real console and api over one SQLite file,
 * through real sockets, as an OFREP provider calls them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, type HttpResponse } from '@svc/testkit';
import { httpCall, startHarness, type Harness } from './harness.ts';

let h: Harness;
let sk: string;
let pk: string;
const P = '/workspaces/acme/projects/web';
const SINGLE = '/acme/ofrep/v1/evaluate/flags';
/** The flags of this file: rules, rollouts, both, neither, off. */
const FLAGS = ['pro.only', 'half', 'de.blocked', 'everyone', 'switched.off'];
const USERS = Array.from({ length: 4 }, (_, i) => ({
  targetingKey: `user-${i * 7919}`,
  plan: i % 2 === 0 ? 'pro' : 'free',
  country: i % 3 === 0 ? 'DE' : 'FR',
}));

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

function evaluate(key: string, body: unknown, headers: Record<string, string> = auth(sk)) {
  return httpCall(h.api.port, 'POST', `${SINGLE}/${key}`, { headers, body });
}

function bulk(body: unknown, headers: Record<string, string> = auth(sk)) {
  return httpCall(h.api.port, 'POST', SINGLE, { headers, body });
}

/** The flag entries of a bulk answer by key. */
function byKey(res: HttpResponse): Record<string, any> {
  return Object.fromEntries(res.json().flags.map((f: any) => [f.key, f]));
}

beforeAll(async () => {
  h = await startHarness({ SYNC_QUARANTINE_MAX: '5' });
  await h.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await h.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  await h.admin('PUT', `${P}/flags/pro.only`, {
    is_active: true,
    rollout_percentage: 0,
    rules: [{ conditions: [{ attribute: 'plan', operator: 'eq', values: ['pro'] }], result: true }],
  });
  await h.admin('PUT', `${P}/flags/half`, { is_active: true, rollout_percentage: 50 });
  await h.admin('PUT', `${P}/flags/de.blocked`, {
    is_active: true,
    rollout_percentage: 30,
    salt: 'de-exp',
    rules: [
      { conditions: [{ attribute: 'country', operator: 'eq', values: ['DE'] }], result: false },
    ],
  });
  await h.admin('PUT', `${P}/flags/everyone`, { is_active: true });
  await h.admin('PUT', `${P}/flags/switched.off`, { is_active: false });
  await h.admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
  await h.admin('PUT', `${P}/configs/db.pool`, { value: { max: 10 }, is_public: false });
  await h.admin('PUT', `${P}/configs/limits.rps`, { value: 40, is_public: true });
  await h.admin('PUT', `${P}/configs/ratio`, { value: 0.25, is_public: true });
  await h.admin('PUT', `${P}/secrets/stripe.key`, { value: 'sk_live_ofrep_e2e_8841' });
  await h.admin('PATCH', P, { ab_testing: true });
  sk = await h.createKey('web', 'secret');
  pk = await h.createKey('web', 'public');
  await h.syncUntil(sk, (body) => body.secrets['stripe.key'] !== undefined);
  await h.syncUntil(pk, () => true);
}, 30_000);

afterAll(() => h?.stop());

describe('POST /ofrep/v1/evaluate/flags/{key}', () => {
  it('takes the key from X-Service-API-Key, Authorization: Bearer or X-API-Key', async () => {
    for (const headers of [
      { 'x-service-api-key': sk } as Record<string, string>,
      { authorization: `Bearer ${sk}` },
      { authorization: `bearer  ${pk}` },
      { 'x-api-key': pk },
    ]) {
      const res = await evaluate('everyone', { context: {} }, headers);
      expect(res.status).toBe(200);
    }
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer svs_not-a-key' },
      { authorization: `Basic ${sk}` },
      { 'x-api-key': `${sk}x` },
    ]) {
      const res = await evaluate('everyone', { context: {} }, headers);
      expect(res.status).toBe(401);
      expect(res.json().code).toBe('unauthorized');
    }
  });

  it('evaluates flags per user exactly as evaluate-ab does, with reasons and variants', async () => {
    const pairs = USERS.flatMap((user) => FLAGS.map((flag) => ({ user, flag })));
    expect(pairs).toHaveLength(20);
    for (const { user, flag } of pairs) {
      const { targetingKey, ...attributes } = user;
      const ab = await httpCall(h.api.port, 'POST', '/acme/v1/flags/evaluate-ab', {
        headers: { 'x-service-api-key': sk },
        body: { flags: [flag], user_id: targetingKey, attributes },
      });
      const res = await evaluate(flag, { context: user });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      const answer = res.json();
      expect(answer).toMatchObject({ key: flag, value: ab.json().results[flag], metadata: {} });
      expect(answer.variant).toBe(answer.value ? 'on' : 'off');
    }
    const reasons = async (flag: string, context: object) =>
      (await evaluate(flag, { context })).json();
    expect(await reasons('pro.only', { targetingKey: 'u', plan: 'pro' })).toMatchObject({
      value: true,
      reason: 'TARGETING_MATCH',
    });
    expect(await reasons('de.blocked', { targetingKey: 'u', country: 'DE' })).toMatchObject({
      value: false,
      reason: 'TARGETING_MATCH',
    });
    expect((await reasons('half', { targetingKey: 'u' })).reason).toBe('SPLIT');
    expect(await reasons('switched.off', { targetingKey: 'u' })).toMatchObject({
      value: false,
      reason: 'DISABLED',
      variant: 'off',
    });
    expect(await reasons('everyone', { targetingKey: 'u' })).toMatchObject({
      value: true,
      reason: 'STATIC',
    });
    // Without a user, a flag is its is_active.
    expect(await reasons('pro.only', { plan: 'free' })).toMatchObject({
      value: true,
      reason: 'STATIC',
      variant: 'on',
    });
  });

  it('resolves configs to their typed JSON values; a public key sees public ones only', async () => {
    const value = async (key: string, k = sk) => {
      const res = await evaluate(key, { context: { targetingKey: 'u' } }, auth(k));
      return [res.status, res.json()] as const;
    };
    expect(await value('db.pool')).toEqual([
      200,
      { key: 'db.pool', value: { max: 10 }, reason: 'STATIC', variant: 'default', metadata: {} },
    ]);
    expect((await value('limits.rps'))[1].value).toBe(40);
    expect((await value('ratio'))[1].value).toBe(0.25);
    expect((await value('ui.theme', pk))[1].value).toBe('dark');
    const [status, body] = await value('db.pool', pk);
    expect(status).toBe(404);
    expect(body).toEqual({
      key: 'db.pool',
      errorCode: 'FLAG_NOT_FOUND',
      errorDetails: "no flag or config 'db.pool' for this key",
      metadata: {},
    });
  });

  it('never resolves a secret, and says FLAG_NOT_FOUND for unknown keys', async () => {
    for (const key of ['stripe.key', 'no.such.key', 'not..a..key']) {
      const res = await evaluate(key, { context: {} });
      expect(res.status).toBe(404);
      expect(res.json()).toMatchObject({ key, errorCode: 'FLAG_NOT_FOUND' });
      expect(res.text).not.toContain('sk_live_ofrep_e2e_8841');
    }
  });

  it('answers a bad body PARSE_ERROR and a bad context INVALID_CONTEXT, 400', async () => {
    const raw = await httpCall(h.api.port, 'POST', `${SINGLE}/everyone`, {
      headers: auth(sk),
      rawBody: '{"context":',
    });
    expect(raw.status).toBe(400);
    expect(raw.json()).toMatchObject({ key: 'everyone', errorCode: 'PARSE_ERROR', metadata: {} });
    const cases: Array<[unknown, string, RegExp]> = [
      [[], 'PARSE_ERROR', /body/],
      [{ context: 'u-1' }, 'INVALID_CONTEXT', /context/],
      [{ context: { targetingKey: 42 } }, 'INVALID_CONTEXT', /context\.targetingKey/],
      [{ context: { targetingKey: 'u'.repeat(257) } }, 'INVALID_CONTEXT', /targetingKey/],
      [{ context: { note: 'x'.repeat(1025) } }, 'INVALID_CONTEXT', /context\.note/],
      [
        { context: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`a${i}`, i])) },
        'INVALID_CONTEXT',
        /at most 50/,
      ],
    ];
    for (const [body, errorCode, details] of cases) {
      const res = await evaluate('everyone', body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json().errorCode).toBe(errorCode);
      expect(res.json().errorDetails).toMatch(details);
    }
    // 50 attributes and a targeting key are within the limits; a missing context is none.
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`a${i}`, i]));
    expect((await evaluate('everyone', { context: { ...fifty, targetingKey: 'u' } })).status).toBe(
      200,
    );
    expect((await evaluate('everyone', {})).status).toBe(200);
  });

  it('answers a body over 64 KiB 413', async () => {
    const res = await evaluate('everyone', { context: { pad: 'x'.repeat(70_000) } });
    expect(res.status).toBe(413);
  });

  it('evaluates statically while the AB add-on is off or billing is overdue', async () => {
    const context = { context: { targetingKey: 'u-1', plan: 'free' } };
    for (const [path, body, undo] of [
      [P, { ab_testing: false }, { ab_testing: true }],
      ['/workspaces/acme', { billing_status: 'overdue' }, { billing_status: 'ok' }],
    ] as const) {
      await h.admin('PATCH', path, body);
      await waitFor(async () => (await evaluate('pro.only', context)).json().reason === 'STATIC');
      expect((await evaluate('pro.only', context)).json()).toMatchObject({ value: true });
      expect((await evaluate('switched.off', context)).json()).toMatchObject({
        value: false,
        reason: 'STATIC',
      });
      await h.admin('PATCH', path, undo);
      await waitFor(async () => (await evaluate('pro.only', context)).json().value === false);
    }
  });

  it('does not count toward the sync quarantine', async () => {
    const key = await h.createKey('web', 'public');
    await h.syncUntil(key, () => true);
    for (let i = 0; i < 8; i++) {
      expect((await evaluate('everyone', { context: {} }, auth(key))).status).toBe(200);
      expect((await bulk({ context: {} }, auth(key))).status).toBe(200);
    }
    expect((await h.sync(key)).status).toBe(200);
    // The quarantine is on in this run (5 syncs a minute): syncs alone reach it.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await h.sync(key)).status);
    expect(statuses).toContain(429);
  });
});

describe('POST /ofrep/v1/evaluate/flags (bulk)', () => {
  it('answers every flag and visible config, evaluated for the context, with an ETag', async () => {
    const res = await bulk({ context: USERS[0] });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const flags = byKey(res);
    expect(Object.keys(flags).sort()).toEqual(
      [...FLAGS, 'db.pool', 'limits.rps', 'ratio', 'ui.theme'].sort(),
    );
    for (const flag of FLAGS) {
      expect(flags[flag]).toEqual((await evaluate(flag, { context: USERS[0] })).json());
    }
    expect(flags['db.pool']).toEqual({
      key: 'db.pool',
      value: { max: 10 },
      reason: 'STATIC',
      variant: 'default',
      metadata: {},
    });
    expect(res.text).not.toContain('stripe');
    const publicAnswer = byKey(await bulk({ context: USERS[0] }, auth(pk)));
    expect(Object.keys(publicAnswer)).not.toContain('db.pool');
    expect(publicAnswer['ui.theme'].value).toBe('dark');
  });

  it('is 304 for the same view and context, 200 with a new ETag when either changes', async () => {
    const first = await bulk({ context: USERS[1] });
    const etag = first.headers.etag as string;
    const again = await bulk({ context: USERS[1] }, { ...auth(sk), 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(etag);
    expect(again.text).toBe('');
    // The ETag names the body's bytes: the same context written otherwise is a 200 (the same
    // answer under another ETag), never a wrong 304.
    const reordered = Object.fromEntries(Object.entries(USERS[1]!).reverse());
    const rewritten = await bulk({ context: reordered }, { ...auth(sk), 'if-none-match': etag });
    expect(rewritten.status).toBe(200);
    expect(rewritten.json().flags).toEqual(first.json().flags);
    // Another user: another ETag.
    const other = await bulk({ context: USERS[2] }, { ...auth(sk), 'if-none-match': etag });
    expect(other.status).toBe(200);
    expect(other.headers.etag).not.toBe(etag);
    // A change to the view: a new ETag for the same context.
    await h.admin('PUT', `${P}/configs/ui.theme`, { value: 'light', is_public: true });
    await waitFor(async () => (await bulk({ context: USERS[1] })).headers.etag !== etag);
    const changed = await bulk({ context: USERS[1] }, { ...auth(sk), 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(byKey(changed)['ui.theme'].value).toBe('light');
  });

  it('changes the ETag when only a flag targeting changes (the snapshot stays the same)', async () => {
    const context = { targetingKey: 'user-77', plan: 'free' };
    const before = await bulk({ context });
    const syncEtag = (await h.sync(sk)).headers.etag;
    await h.admin('PUT', `${P}/flags/half`, { is_active: true, rollout_percentage: 100 });
    await waitFor(async () => (await bulk({ context })).headers.etag !== before.headers.etag);
    expect(byKey(await bulk({ context }))['half']).toMatchObject({ value: true, reason: 'STATIC' });
    expect((await h.sync(sk)).headers.etag).toBe(syncEtag);
    await h.admin('PUT', `${P}/flags/half`, { is_active: true, rollout_percentage: 50 });
    await waitFor(async () => byKey(await bulk({ context }))['half'].reason === 'SPLIT');
  });

  it('does not depend on the context while flags are not evaluated per user', async () => {
    const a = { context: { targetingKey: 'a', plan: 'pro' } };
    const b = { context: { targetingKey: 'b', plan: 'free' } };
    expect((await bulk(a)).headers.etag).not.toBe((await bulk(b)).headers.etag);
    await h.admin('PATCH', P, { ab_testing: false });
    await waitFor(async () => byKey(await bulk(a))['half'].reason === 'STATIC');
    const off = await bulk(a);
    expect(
      (await bulk(b, { ...auth(sk), 'if-none-match': off.headers.etag as string })).status,
    ).toBe(304);
    expect(byKey(off)['pro.only']).toMatchObject({ value: true, reason: 'STATIC' });
    await h.admin('PATCH', P, { ab_testing: true });
    await waitFor(async () => byKey(await bulk(a))['half'].reason !== 'STATIC');
  });

  it('names the event stream of the caller view, without the key in the URL', async () => {
    const res = await bulk({ context: {} });
    const streams = res.json().eventStreams;
    expect(streams).toHaveLength(1);
    expect(streams[0].type).toBe('sse');
    expect(streams[0].endpoint.requestUri).toMatch(
      /^\/acme\/ofrep\/v1\/events\?view=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/,
    );
    expect(streams[0].endpoint.requestUri).not.toContain(sk);
    expect(JSON.stringify(res.json())).not.toContain(sk.slice(4));
  });

  it('works in host form, naming the stream under the host', async () => {
    const res = await httpCall(h.api.port, 'POST', '/ofrep/v1/evaluate/flags', {
      headers: { ...auth(sk), host: 'acme.localhost' },
      body: { context: {} },
    });
    expect(res.status).toBe(200);
    expect(res.json().eventStreams[0].endpoint.requestUri).toMatch(/^\/ofrep\/v1\/events\?view=/);
  });

  it('comes gzip- or brotli-encoded when asked, 304 for its ETag in any coding', async () => {
    const body = JSON.stringify({ context: USERS[3] });
    const identity = await bulk({ context: USERS[3] });
    expect(identity.text.length).toBeGreaterThan(1024);
    expect(identity.headers.vary).toBe('Accept-Encoding');
    for (const coding of ['gzip', 'br']) {
      // fetch decodes the body and leaves the headers as they came.
      const res = await fetch(`http://127.0.0.1:${h.api.port}${SINGLE}`, {
        method: 'POST',
        headers: { ...auth(sk), 'content-type': 'application/json', 'accept-encoding': coding },
        body,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-encoding')).toBe(coding);
      expect(res.headers.get('etag')).toBe(
        `${(identity.headers.etag as string).slice(0, -1)}-${coding}"`,
      );
      expect(await res.json()).toEqual(identity.json());
      const again = await bulk(
        { context: USERS[3] },
        { ...auth(sk), 'if-none-match': res.headers.get('etag')! },
      );
      expect(again.status).toBe(304);
    }
  });

  it('answers PARSE_ERROR and INVALID_CONTEXT without a key member, 400', async () => {
    const parse = await bulk([1]);
    expect(parse.status).toBe(400);
    expect(parse.json()).toEqual({
      errorCode: 'PARSE_ERROR',
      errorDetails: 'body: must be a JSON object',
      metadata: {},
    });
    const context = await bulk({ context: { targetingKey: ['u'] } });
    expect(context.json().errorCode).toBe('INVALID_CONTEXT');
  });
});

describe('CORS', () => {
  it('allows Authorization and X-API-Key in a preflight on /ofrep/', async () => {
    const res = await httpCall(h.api.port, 'OPTIONS', SINGLE, {
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, x-api-key, content-type, if-none-match',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase();
    for (const header of ['authorization', 'x-api-key', 'content-type', 'if-none-match']) {
      expect(allowed).toContain(header);
    }
    const answer = await bulk({ context: {} });
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-expose-headers']).toContain('ETag');
  });
});
