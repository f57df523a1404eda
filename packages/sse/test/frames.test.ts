import { describe, expect, it } from 'vitest';
import { changeData, changeFrames, resyncFrame, retryFrame, ViewHistory } from '../src/index.ts';

describe('frames', () => {
  it('writes retry, resync and one change event per item with its own id line', () => {
    expect(retryFrame(1000).toString()).toBe('retry: 1000\n\n');
    expect(resyncFrame(42).toString()).toBe('event: resync\ndata: {"revision":42}\n\n');
    const frames = changeFrames(7, [
      { id: 'config:db.pool', op: 'upsert', json: '{"max":10}' },
      { id: 'flag:checkout.v2', op: 'delete' },
    ]);
    expect(frames.toString()).toBe(
      'event: change\nid: 7\ndata: {"revision":7,"kind":"config","key":"db.pool","op":"upsert","value":{"max":10}}\n\n' +
        'event: change\nid: 7\ndata: {"revision":7,"kind":"flag","key":"checkout.v2","op":"delete"}\n\n',
    );
  });

  it('merges a secret snapshot into the event and keeps data on one line', () => {
    const file = changeData(3, {
      id: 'secret:tls.cert',
      op: 'upsert',
      json: '{"value":"a\\nb","type":"file","version":2,"file_name":"tls.pem"}',
    });
    expect(JSON.parse(file)).toEqual({
      revision: 3,
      kind: 'secret',
      key: 'tls.cert',
      op: 'upsert',
      value: 'a\nb',
      type: 'file',
      version: 2,
      file_name: 'tls.pem',
    });
    const pretty = changeData(3, { id: 'config:x', op: 'upsert', json: '{\n  "a": 1\n}' });
    expect(pretty).not.toMatch(/[\r\n]/);
    expect(JSON.parse(pretty).value).toEqual({ a: 1 });
    expect(JSON.parse(changeData(4, { id: 'secret:k', op: 'delete' }))).toEqual({
      revision: 4,
      kind: 'secret',
      key: 'k',
      op: 'delete',
    });
  });
});

describe('view history', () => {
  const frame = (n: number, size = 10) => Buffer.alloc(size, n);

  it('replays the diffs after a revision it went through', () => {
    const h = new ViewHistory(10, { maxEntries: 10, maxBytes: 1000 });
    h.append(11, frame(11), 1);
    h.append(13, frame(13), 2);
    h.append(13, frame(99), 1); // not after the head: ignored
    expect(h.since(10)).toEqual({ frames: [frame(11), frame(13)], events: 3 });
    expect(h.since(11)).toEqual({ frames: [frame(13)], events: 2 });
    expect(h.since(13)).toEqual({ frames: [], events: 0 });
    expect(h.since(12)).toBeUndefined(); // never a revision of this view
    expect(h.since(9)).toBeUndefined(); // before the history
    expect(h.since(14)).toBeUndefined(); // ahead of it
  });

  it('evicts the oldest diffs by count and by bytes', () => {
    const byCount = new ViewHistory(0, { maxEntries: 2, maxBytes: 1000 });
    for (let r = 1; r <= 4; r++) byCount.append(r, frame(r), 1);
    expect(byCount.size).toBe(2);
    expect(byCount.since(1)).toBeUndefined();
    expect(byCount.since(2)?.frames).toEqual([frame(3), frame(4)]);
    const byBytes = new ViewHistory(0, { maxEntries: 100, maxBytes: 25 });
    for (let r = 1; r <= 4; r++) byBytes.append(r, frame(r), 1);
    expect(byBytes.since(2)?.frames).toEqual([frame(3), frame(4)]);
    expect(byBytes.since(1)).toBeUndefined();
    byBytes.append(5, frame(5, 100), 1); // the newest stays even when alone over budget
    expect(byBytes.since(4)?.frames).toEqual([frame(5, 100)]);
  });
});
