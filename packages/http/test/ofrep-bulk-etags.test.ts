import { describe, expect, it } from 'vitest';
import { BulkEtags } from '../src/ofrep/ofrep-bulk-etags.ts';

const body = (user: string) => JSON.stringify({ context: { targetingKey: user } });

describe('bulk ETags', () => {
  const etags = new BulkEtags('"view-1"', 'targeting-1');
  const caller = (url = '/acme/ofrep/v1/evaluate/flags', token = 't1', key = 'k1') =>
    etags.caller(key, url, token, '/ofrep/v1/evaluate/flags');

  it('names the base path of the URL, in path form and in host form', () => {
    expect(caller().basePath).toBe('/acme');
    expect(caller('/acme/ofrep/v1/evaluate/flags?x=1').basePath).toBe('/acme');
    expect(caller('/ofrep/v1/evaluate/flags').basePath).toBe('');
  });

  it('differs by body, base path, token, and static or per user; the same for the same', () => {
    const a = caller().perUser(body('u1')).etag;
    expect(caller().perUser(body('u1')).etag).toBe(a);
    const others = [
      caller().perUser(body('u2')).etag,
      caller('/ofrep/v1/evaluate/flags').perUser(body('u1')).etag,
      caller(undefined, 't2').perUser(body('u1')).etag,
      caller().static().etag,
      new BulkEtags('"view-2"', 'targeting-1')
        .caller('k1', '/acme/x', 't1', '/x')
        .perUser(body('u1')).etag,
      new BulkEtags('"view-1"', 'targeting-2')
        .caller('k1', '/acme/x', 't1', '/x')
        .perUser(body('u1')).etag,
    ];
    expect(new Set([a, ...others]).size).toBe(others.length + 1);
    // Another key with the same URL and token gets the same answer, so the same ETag.
    expect(caller(undefined, undefined, 'k2').perUser(body('u1')).etag).toBe(a);
  });

  it('gives each ETag its encoded forms', () => {
    const { etag, encodings } = caller().static();
    expect(encodings).toEqual([`${etag.slice(0, -1)}-gzip"`, `${etag.slice(0, -1)}-br"`]);
  });

  it('keeps its memo bounded and its answers the same past it', () => {
    const long = body('x'.repeat(5000));
    const first = caller().perUser(long).etag;
    const bodies = Array.from({ length: 3000 }, (_, i) => body(`user-${i}`.padEnd(100, '-')));
    const before = bodies.map((b) => caller().perUser(b).etag);
    expect(bodies.map((b) => caller().perUser(b).etag)).toEqual(before);
    expect(caller().perUser(long).etag).toBe(first);
  });
});
