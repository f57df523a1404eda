/**
 * OFREP event streams end to end (ADR-0008): the URL a bulk answer names, opened as a browser's
 * EventSource would (no headers), read as raw SSE bytes from the real api; changes made in the
 * real console.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStream, type SseEvent, type SseReader } from '@svc/sse/testing';
import { httpCall, startHarness, type Harness } from './harness.ts';

let h: Harness;
let sk: string;
let pk: string;
const P = '/workspaces/acme/projects/web';
const SECRET = 'sk_live_ofrep_events_5521';
const readers: SseReader[] = [];

/** The event-stream path a bulk answer names for `key`. */
async function streamPath(key: string, slug = 'acme'): Promise<string> {
  const res = await httpCall(h.api.port, 'POST', `/${slug}/ofrep/v1/evaluate/flags`, {
    headers: { authorization: `Bearer ${key}` },
    body: { context: { targetingKey: 'u-1' } },
  });
  expect(res.status).toBe(200);
  return res.json().eventStreams[0].endpoint.requestUri;
}

async function open(path: string): Promise<SseReader> {
  const reader = await openStream(h.api.port, path);
  readers.push(reader);
  return reader;
}

const refetch = (e: SseEvent) =>
  e.event === 'message' && JSON.parse(e.data).type === 'refetchEvaluation';

beforeAll(async () => {
  h = await startHarness();
  await h.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await h.admin('POST', '/workspaces', { slug: 'other', name: 'Other' });
  await h.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  await h.admin('POST', '/workspaces/acme/projects', { slug: 'shop', name: 'Shop' });
  await h.admin('PUT', `${P}/flags/beta`, { is_active: true, rollout_percentage: 50 });
  await h.admin('PUT', `${P}/secrets/stripe.key`, { value: SECRET });
  sk = await h.createKey('web', 'secret');
  pk = await h.createKey('web', 'public');
  await h.syncUntil(sk, (body) => body.secrets['stripe.key'] !== undefined);
  await h.syncUntil(pk, () => true);
}, 30_000);

afterAll(async () => {
  for (const reader of readers) reader.close();
  await h?.stop();
});

describe('GET /ofrep/v1/events', () => {
  it('streams refetchEvaluation at once and on every change of the view', async () => {
    const reader = await open(await streamPath(sk));
    expect(reader.status).toBe(200);
    expect(reader.headers['content-type']).toBe('text/event-stream');
    expect(reader.headers['access-control-allow-origin']).toBe('*');
    const first = await reader.next(refetch);
    expect(reader.retry).toBe(1000);
    const data = JSON.parse(first.data);
    expect(data).toEqual({
      type: 'refetchEvaluation',
      etag: expect.stringMatching(/^\d+$/),
      lastModified: expect.any(Number),
    });
    expect(Math.abs(data.lastModified - Date.now() / 1000)).toBeLessThan(5);

    await h.admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
    const change = JSON.parse((await reader.next(refetch)).data);
    expect(Number(change.etag)).toBeGreaterThan(Number(data.etag));
    // A targeting edit leaves the snapshot alone but not the evaluations.
    await h.admin('PUT', `${P}/flags/beta`, { is_active: true, rollout_percentage: 60 });
    await reader.next(refetch);
    // So does switching the AB Testing add-on.
    await h.admin('PATCH', P, { ab_testing: true });
    await reader.next(refetch);
  });

  it("tells nothing of another project's changes", async () => {
    const reader = await open(await streamPath(sk));
    await reader.next(refetch);
    await h.admin('PUT', '/workspaces/acme/projects/shop/configs/x', { value: 1, is_public: true });
    await h.admin('PUT', `${P}/configs/marker`, { value: 1, is_public: true });
    await reader.next(refetch);
    // One event per change of this view: the marker's, nothing for the other project.
    expect(reader.events.filter(refetch)).toHaveLength(2);
  });

  it('carries no value, and a public key gets change notices too', async () => {
    const reader = await open(await streamPath(pk));
    await reader.next(refetch);
    await h.admin('PUT', `${P}/secrets/stripe.key`, { value: `${SECRET}-2` });
    await h.admin('PUT', `${P}/configs/ui.theme`, { value: 'light', is_public: true });
    await reader.next(refetch);
    const secretReader = await open(await streamPath(sk));
    await h.admin('PUT', `${P}/secrets/stripe.key`, { value: `${SECRET}-3` });
    await secretReader.next(refetch);
    await secretReader.next(refetch);
    for (const r of [reader, secretReader]) {
      const raw = r.raw().toString();
      expect(raw).not.toContain(SECRET);
      expect(raw).not.toContain('light');
    }
  });

  it('refuses missing, forged, foreign and revoked tokens with 401', async () => {
    const path = await streamPath(sk);
    const token = new URL(path, 'http://x').searchParams.get('view')!;
    const [body, mac] = token.split('.') as [string, string];
    const flipped = `${body}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    for (const bad of [
      '/acme/ofrep/v1/events',
      '/acme/ofrep/v1/events?view=',
      `/acme/ofrep/v1/events?view=${flipped}`,
      `/acme/ofrep/v1/events?view=${body}`,
      `/other/ofrep/v1/events?view=${token}`,
    ]) {
      const res = await httpCall(h.api.port, 'GET', bad);
      expect(res.status, bad).toBe(401);
      expect(res.json().code).toBe('unauthorized');
    }
    expect((await httpCall(h.api.port, 'GET', '/nope/ofrep/v1/events')).status).toBe(404);
  });

  it("closes a revoked key's streams and refuses its token afterwards", async () => {
    const created = (await h.admin('POST', `${P}/keys`, { kind: 'public' })).json();
    await h.syncUntil(created.key, () => true);
    const path = await streamPath(created.key);
    const reader = await open(path);
    await reader.next(refetch);
    await h.admin('DELETE', `${P}/keys/${created.id}`);
    expect(await reader.ended).toBe('end');
    expect((await httpCall(h.api.port, 'GET', path)).status).toBe(401);
  });
});
