import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { ViewItem, ViewItems, type View } from '@svc/domain';
import {
  acceptedCodings,
  EAGER_REFRESH_MAX_ITEMS,
  MIN_ENCODED_BYTES,
  SYNC_ENCODE_MAX_BYTES,
  SyncAnswers,
} from '../src/index.ts';

/** A view whose snapshot body is about `size` bytes of JSON. */
function viewOf(size: number, revision = 1, id = 'p|svc|sk'): View {
  const configs: Record<string, string> = {};
  // About 24 bytes per entry (`"key.123":"value 123",`).
  for (let i = 0; i * 24 < size; i++) configs[`key.${i}`] = `value ${i}`;
  const body = JSON.stringify({ revision, key_type: 'sk', configs, flags: {}, secrets: {} });
  return {
    id,
    projectId: 'p',
    serviceId: 'svc',
    keyType: 'sk',
    revision,
    items: ViewItems.empty(),
    flags: new Map(),
    body,
    etag: `"etag-${size}-${revision}"`,
  };
}

const decode = (coding: unknown, bytes: Buffer) =>
  (coding === 'br' ? brotliDecompressSync(bytes) : gunzipSync(bytes)).toString();

describe('acceptedCodings', () => {
  it('ranks what the header allows, brotli first on ties, identity without a header', () => {
    expect(acceptedCodings(undefined)).toEqual(['identity']);
    expect(acceptedCodings('gzip')).toEqual(['gzip', 'identity']);
    expect(acceptedCodings('gzip, deflate, br, zstd')).toEqual(['br', 'gzip', 'identity']);
    expect(acceptedCodings('br;q=0.5, gzip')).toEqual(['gzip', 'br', 'identity']);
    expect(acceptedCodings('gzip;q=0, deflate')).toEqual(['identity']);
    // Refusing everything still gets identity: a 406 would leave a client with nothing.
    expect(acceptedCodings('*;q=0')).toEqual(['identity']);
  });
});

describe('SyncAnswers', () => {
  it('answers small bodies as they are, with Vary', () => {
    const view = viewOf(MIN_ENCODED_BYTES - 200);
    const answers = new SyncAnswers(() => view).of(view);
    const served = answers.pick('gzip, br');
    expect(served.ok['Content-Encoding']).toBeUndefined();
    expect(served.ok.Vary).toBe('Accept-Encoding');
    expect(served.bytes.toString()).toBe(view.body);
    expect(served.etag).toBe(view.etag);
  });

  it('encodes mid-sized bodies at once, each with its own ETag and the same content', () => {
    const view = viewOf(20_000);
    const answers = new SyncAnswers(() => view).of(view);
    const gz = answers.pick('gzip');
    const br = answers.pick('gzip, br');
    const plain = answers.pick(undefined);
    expect(gz.ok['Content-Encoding']).toBe('gzip');
    expect(br.ok['Content-Encoding']).toBe('br');
    expect(plain.ok['Content-Encoding']).toBeUndefined();
    expect(decode('gzip', gz.bytes)).toBe(view.body);
    expect(decode('br', br.bytes)).toBe(view.body);
    expect(gz.bytes.length * 3).toBeLessThan(plain.bytes.length);
    expect(gz.ok['Content-Length']).toBe(gz.bytes.length);
    expect(new Set([gz.etag, br.etag, plain.etag]).size).toBe(3);
    expect(gz.etag).toBe(view.etag.replace(/"$/, '-gzip"'));
  });

  it('takes the ETag of any encoding of the revision as a match, and no other', () => {
    const view = viewOf(20_000);
    const answers = new SyncAnswers(() => view).of(view);
    const plain = answers.pick(undefined);
    for (const coding of [undefined, 'gzip', 'br']) {
      const tag = answers.pick(coding).etag;
      expect(answers.matches(tag, plain)).toBe(true);
      expect(answers.matches(`W/${tag}`, answers.pick('gzip'))).toBe(true);
      expect(answers.matches(`"other", ${tag}`, answers.pick('br'))).toBe(true);
    }
    expect(answers.matches('"etag-20000-2"', plain)).toBe(false);
    expect(answers.matches('"etag-20000-1-deflate"', plain)).toBe(false);
    expect(answers.matches(undefined, plain)).toBe(false);
  });

  it('encodes large bodies off the event loop, serving identity until they are ready', async () => {
    const view = viewOf(SYNC_ENCODE_MAX_BYTES * 4);
    const answers = new SyncAnswers(() => view).of(view);
    expect(answers.pick('gzip').ok['Content-Encoding']).toBeUndefined();
    await vi.waitFor(() => expect(answers.has('gzip') && answers.has('br')).toBe(true));
    expect(decode('gzip', answers.pick('gzip').bytes)).toBe(view.body);
    expect(decode('br', answers.pick('br').bytes)).toBe(view.body);
  });

  it('keeps one revision per view and refreshes a synced view after it changes', async () => {
    let current = viewOf(20_000, 1);
    const sync = new SyncAnswers(() => current);
    const first = sync.of(current);
    expect(sync.of({ ...current, flags: new Map() })).toBe(first); // same ETag, same answers
    const next = viewOf(20_000, 2);
    current = next;
    sync.refresh([next, viewOf(20_000, 2, 'never|synced|sk')]);
    await new Promise((r) => setImmediate(r));
    const refreshed = sync.of(next);
    expect(refreshed).not.toBe(first);
    expect(refreshed.has('gzip')).toBe(true);
  });

  it('leaves a very large view to its first sync instead of refreshing it after a change', async () => {
    const edits = Array.from({ length: EAGER_REFRESH_MAX_ITEMS + 1 }, (_, i) => ({
      kind: 'flag' as const,
      key: `f${i}`,
      item: new ViewItem('flag', `f${i}`, 'true', (text) => text),
    }));
    const large = { ...viewOf(20_000, 1), items: ViewItems.empty().with(edits) };
    let current: View = large;
    const sync = new SyncAnswers(() => current);
    const first = sync.of(large);
    current = { ...large, revision: 2, etag: '"large-2"' };
    sync.refresh([current]);
    await new Promise((r) => setImmediate(r));
    expect(sync.of(large)).toBe(first); // not replaced by a refresh of revision 2
  });

  it('drops the encodings of a revision replaced before they were ready', async () => {
    let current = viewOf(SYNC_ENCODE_MAX_BYTES * 4, 1);
    const sync = new SyncAnswers(() => current);
    const old = sync.of(current);
    current = viewOf(SYNC_ENCODE_MAX_BYTES * 4, 2);
    const fresh = sync.of(current);
    await vi.waitFor(() => expect(fresh.has('gzip') && fresh.has('br')).toBe(true));
    await new Promise((r) => setTimeout(r, 50));
    expect(old.has('gzip') || old.has('br')).toBe(false);
  });
});
