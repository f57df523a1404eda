/**
 * The change feed: every change after the start seq reaches the listener once, in order, never
 * two batches at once; changes committed by another store arrive; poke() reads at once; a
 * listener that throws gets the same changes again.
 */
import { describe, expect, it } from 'vitest';
import type { Change, Store } from '@svc/domain';
import { eventually, range, seed, sleep, type Harness } from '../fixtures.ts';

/** Collects what a feed delivers and checks that batches never overlap. */
class Recorder {
  readonly batches: Change[][] = [];
  private running = 0;
  maxRunning = 0;

  constructor(private readonly delayMs = 0) {}

  readonly listener = async (changes: Change[]): Promise<void> => {
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      this.batches.push(changes);
      if (this.delayMs > 0) await sleep(this.delayMs);
    } finally {
      this.running--;
    }
  };

  get seqs(): number[] {
    return this.batches.flat().map((c) => c.seq);
  }
}

async function putConfigs(store: Store, projectId: string, keys: string[]): Promise<void> {
  await store.transaction(async (tx) => {
    for (const key of keys) {
      await tx.putConfig({ projectId, serviceId: null }, { key, valueJson: '1', isPublic: false });
    }
  });
}

export function describeChangeFeed(h: Harness): void {
  describe('change feed', () => {
    it('delivers the changes after the start seq, then new ones, in order and once', async () => {
      const s = await seed(h.store);
      await putConfigs(h.store, s.project.id, ['a', 'b']);
      const recorder = new Recorder();
      await h.feed().follow(0, recorder.listener);
      await eventually(() => expect(recorder.seqs).toStrictEqual([1, 2, 3, 4, 5]));

      await putConfigs(h.store, s.project.id, ['c']);
      await h.store.transaction((tx) => tx.insertWorkspace({ slug: 'next', name: 'N' }));
      await putConfigs(h.store, s.project.id, ['d', 'e']);
      await eventually(() => expect(recorder.seqs).toStrictEqual(range(1, 9)));
      await sleep(30);
      expect(recorder.seqs).toStrictEqual(range(1, 9));
      expect(recorder.batches.flat()).toStrictEqual(await h.store.changesAfter(0, 100));
    });

    it('starts after the given seq', async () => {
      const s = await seed(h.store);
      await putConfigs(h.store, s.project.id, ['a', 'b', 'c']);
      const recorder = new Recorder();
      await h.feed().follow(4, recorder.listener);
      await eventually(() => expect(recorder.seqs).toStrictEqual([5, 6]));
      await sleep(20);
      expect(recorder.seqs).toStrictEqual([5, 6]);
    });

    it('never runs the listener twice at once, across batches', async () => {
      const s = await seed(h.store);
      const keys = range(1, 1100).map((i) => `k${i}`);
      await putConfigs(h.store, s.project.id, keys);
      const recorder = new Recorder(5);
      const feed = h.feed();
      // Wake the feed up again and again while it is still delivering the backlog.
      const following = feed.follow(0, recorder.listener);
      for (let i = 0; i < 10; i++) {
        feed.poke();
        if (i === 3) await putConfigs(h.store, s.project.id, ['late']);
        await sleep(1);
      }
      await following;
      await eventually(() => expect(recorder.seqs).toStrictEqual(range(1, 1104)), 5000);
      expect(recorder.maxRunning).toBe(1);
      expect(recorder.batches.length).toBeGreaterThan(1);
    });

    it('delivers a change committed by the other store within milliseconds', async () => {
      const other = await h.another();
      if (!other) return;
      const s = await seed(h.store);
      const recorder = new Recorder();
      await h.feed().follow(await h.store.lastChangeSeq(), recorder.listener);
      const started = Date.now();
      await putConfigs(other, s.project.id, ['from-other']);
      await eventually(() =>
        expect(recorder.batches.flat().map((c) => c.key)).toStrictEqual(['from-other']),
      );
      // Far below any periodic catch-up: the feed noticed the commit itself.
      expect(Date.now() - started).toBeLessThan(250);
    });

    it('delivers a change committed by its own store within milliseconds', async () => {
      const s = await seed(h.store);
      const recorder = new Recorder();
      await h.feed().follow(await h.store.lastChangeSeq(), recorder.listener);
      const started = Date.now();
      await putConfigs(h.store, s.project.id, ['mine']);
      await eventually(() =>
        expect(recorder.batches.flat().map((c) => c.key)).toStrictEqual(['mine']),
      );
      expect(Date.now() - started).toBeLessThan(250);
    });

    it('reads at once on poke()', async () => {
      const s = await seed(h.store);
      const recorder = new Recorder();
      const feed = h.feed({ passive: true });
      await feed.follow(await h.store.lastChangeSeq(), recorder.listener);
      await putConfigs(h.store, s.project.id, ['poked']);
      await sleep(40);
      expect(recorder.seqs).toStrictEqual([]);
      const poked = Date.now();
      feed.poke();
      await eventually(() => expect(recorder.seqs).toStrictEqual([4]), 500);
      expect(Date.now() - poked).toBeLessThan(100);
    });

    it('offers the same changes again after the listener throws', async () => {
      const s = await seed(h.store);
      const calls: number[][] = [];
      let failuresLeft = 2;
      const feed = h.feed();
      await feed.follow(3, (changes) => {
        calls.push(changes.map((c) => c.seq));
        if (failuresLeft > 0) {
          failuresLeft--;
          throw new Error('listener failed');
        }
      });
      await putConfigs(h.store, s.project.id, ['a', 'b']);
      await eventually(() => expect(calls.length).toBeGreaterThanOrEqual(3));
      // However the reads were split, each retry starts at the first undelivered change.
      const firstAttempts = calls.slice(0, 3).map((seqs) => seqs[0]);
      expect(firstAttempts).toStrictEqual([4, 4, 4]);
      await putConfigs(h.store, s.project.id, ['c']);
      await eventually(() => expect(calls.slice(2).flat()).toStrictEqual([4, 5, 6]));
      await sleep(20);
      expect(calls.slice(2).flat()).toStrictEqual([4, 5, 6]);
    });

    it('delivers nothing after close()', async () => {
      const s = await seed(h.store);
      const recorder = new Recorder();
      const feed = h.feed();
      await feed.follow(0, recorder.listener);
      await eventually(() => expect(recorder.seqs).toStrictEqual([1, 2, 3]));
      await feed.close();
      await putConfigs(h.store, s.project.id, ['after']);
      feed.poke();
      await sleep(30);
      expect(recorder.seqs).toStrictEqual([1, 2, 3]);
    });
  });
}
