/**
 * A minted key's expiry, in real time (the shortest `ttl_s` is 60 s): the key works until
 * `expires_at`, is refused from then on, and its open stream ends within a second of it. Its
 * own file, so that the minute runs beside the other test files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStream } from '@svc/sse/testing';
import { startOidcIssuer, type OidcIssuer } from '@svc/testkit/identity';
import { httpCall, startHarness, type Harness } from './harness.ts';

const P = '/workspaces/acme/projects/web';
let h: Harness;
let issuer: OidcIssuer;

beforeAll(async () => {
  h = await startHarness({ IDENTITY_ALLOW_HTTP: 'true' });
  issuer = await startOidcIssuer();
  for (const [path, body] of [
    ['/workspaces', { slug: 'acme', name: 'Acme' }],
    ['/workspaces/acme/projects', { slug: 'web', name: 'Web' }],
  ] as const) {
    expect((await h.admin('POST', path, body)).status).toBe(201);
  }
});

afterAll(async () => {
  await h?.stop();
  await issuer?.close();
});

describe('a minted key with ttl_s 60', () => {
  it('works until expires_at, then is refused, and its stream ends within a second', async () => {
    const identity = (
      await h.admin('POST', `${P}/identities`, {
        name: 'one minute',
        kind: 'secret',
        ttl_s: 60,
        method: 'oidc',
        oidc: { issuer: issuer.issuer, audiences: ['svc'] },
      })
    ).json();
    const res = await httpCall(h.api.port, 'POST', '/acme/v1/auth/token', {
      body: { identity_id: identity.id, token: await issuer.sign({ sub: 'ci', aud: 'svc' }) },
    });
    const { key, expires_at, expires_in } = res.json();
    expect(expires_in).toBe(60);
    const expiresAt = Date.parse(expires_at);

    const stream = await openStream(h.api.port, '/acme/v1/stream', {
      headers: { 'x-service-api-key': key },
    });
    expect((await stream.next()).event).toBe('resync');
    let endedAt = 0;
    const ended = stream.ended.then((how) => {
      endedAt = Date.now();
      return how;
    });

    // Shortly before the expiry: still a key like any other.
    await new Promise((r) => setTimeout(r, expiresAt - Date.now() - 3000));
    expect((await h.sync(key)).status).toBe(200);
    expect(endedAt).toBe(0);

    expect(await ended).toBe('end');
    expect(endedAt).toBeGreaterThanOrEqual(expiresAt);
    // Within a second by design (a sweep every 500 ms); room for a loaded CI core.
    expect(endedAt - expiresAt).toBeLessThan(1500);
    const after = await h.sync(key);
    expect(after.status).toBe(401);
    expect(after.json().detail).toBe('the API key has expired');
    const again = await openStream(h.api.port, '/acme/v1/stream', {
      headers: { 'x-service-api-key': key },
    });
    expect(again.status).toBe(401);
  }, 90_000);
});
