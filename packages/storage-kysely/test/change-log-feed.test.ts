import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Change } from '@svc/domain';
import { ChangeLogFeed, type ChangeLogFeedOptions } from '../src/change-log-feed.ts';

/** A change log in memory: what the feed reads is whatever the test appended. */
function memoryLog() {
  const rows: Change[] = [];
  const append = (count: number): void => {
    for (let i = 0; i < count; i++) {
      const seq = rows.length + 1;
      rows.push({
        seq,
        kind: 'config',
        op: 'upsert',
        workspaceId: 'w',
        projectId: 'p',
        serviceId: null,
        key: `k${seq}`,
        revision: seq,
        at: seq,
      });
    }
  };
  const readChanges = vi.fn((afterSeq: number, limit: number) =>
    rows.filter((c) => c.seq > afterSeq).slice(0, limit),
  );
  return { append, readChanges };
}

const feeds: ChangeLogFeed[] = [];
const open = (options: ChangeLogFeedOptions): ChangeLogFeed => {
  const feed = new ChangeLogFeed({ catchUpIntervalMs: Infinity, ...options });
  feeds.push(feed);
  return feed;
};

afterEach(async () => {
  for (const feed of feeds.splice(0)) await feed.close();
});

describe('ChangeLogFeed', () => {
  it('reports every failure with the error, and offers the batch again after a growing wait', async () => {
    const log = memoryLog();
    log.append(3);
    const errors: Array<{ message: string; failures: number; at: number }> = [];
    const attempts: number[][] = [];
    const feed = open({
      readChanges: log.readChanges,
      minRetryDelayMs: 20,
      maxRetryDelayMs: 80,
      onError: (error, failures) =>
        errors.push({ message: error.message, failures, at: performance.now() }),
    });
    await feed.follow(0, (changes) => {
      attempts.push(changes.map((c) => c.seq));
      if (attempts.length <= 4) throw new Error(`attempt ${attempts.length} failed`);
    });
    await vi.waitFor(() => expect(attempts).toHaveLength(5), { timeout: 2000 });
    expect(attempts).toStrictEqual([
      [1, 2, 3],
      [1, 2, 3],
      [1, 2, 3],
      [1, 2, 3],
      [1, 2, 3],
    ]);
    expect(errors.map((e) => [e.message, e.failures])).toStrictEqual([
      ['attempt 1 failed', 1],
      ['attempt 2 failed', 2],
      ['attempt 3 failed', 3],
      ['attempt 4 failed', 4],
    ]);
    // 20, 40, 80, then capped at 80 ms (timers never fire early; a loaded machine fires late).
    const gaps = errors.slice(1).map((e, i) => e.at - errors[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(19);
    expect(gaps[1]).toBeGreaterThanOrEqual(39);
    expect(gaps[2]).toBeGreaterThanOrEqual(79);
    expect(feed.position).toBe(3);
  });

  it("waits out a failed batch's retry instead of reading on every poke", async () => {
    const log = memoryLog();
    log.append(1);
    let fail = true;
    const feed = open({ readChanges: log.readChanges, minRetryDelayMs: 200 });
    await feed.follow(0, () => {
      if (fail) throw new Error('not now');
    });
    const reads = log.readChanges.mock.calls.length;
    fail = false;
    for (let i = 0; i < 20; i++) feed.poke();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log.readChanges.mock.calls.length).toBe(reads);
    expect(feed.position).toBe(0);
    await vi.waitFor(() => expect(feed.position).toBe(1), { timeout: 2000 });
  });

  it('reads in batches and reports a failed read like a failed listener', async () => {
    const log = memoryLog();
    log.append(5);
    const failures: string[] = [];
    let failRead = true;
    const seen: number[][] = [];
    const feed = open({
      readChanges: (afterSeq, limit) => {
        if (afterSeq === 2 && failRead) {
          failRead = false;
          throw new Error('connection lost');
        }
        return log.readChanges(afterSeq, limit);
      },
      batchSize: 2,
      onError: (error) => failures.push(error.message),
    });
    await feed.follow(0, (changes) => void seen.push(changes.map((c) => c.seq)));
    await vi.waitFor(() => expect(feed.position).toBe(5), { timeout: 2000 });
    expect(seen).toStrictEqual([[1, 2], [3, 4], [5]]);
    expect(failures).toStrictEqual(['connection lost']);
  });
});
