import { statSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Doorbell, bellPath, listenForBell } from '../src/doorbell.ts';
import { tempDatabase } from './temp-database.ts';

describe('the doorbell of a SQLite file', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  const setUp = () => {
    const db = tempDatabase();
    const bell = new Doorbell(bellPath(db.file));
    cleanups.push(db.remove, () => bell.close());
    return { path: bellPath(db.file), bell, remove: db.remove };
  };

  it('wakes a listener in the same folder each time it rings', async () => {
    const { path, bell } = setUp();
    const onRing = vi.fn();
    const watcher = listenForBell(path, onRing, () => {});
    cleanups.push(() => watcher?.close());
    expect(watcher).toBeDefined();

    bell.ring();
    await vi.waitFor(() => expect(onRing).toHaveBeenCalled(), { timeout: 1000 });
    const afterFirst = onRing.mock.calls.length;
    bell.ring();
    await vi.waitFor(() => expect(onRing.mock.calls.length).toBeGreaterThan(afterFirst), {
      timeout: 1000,
    });
  });

  it('is a file only its owner can read or write', () => {
    const { path, bell } = setUp();
    bell.ring();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('does not throw when its folder is gone, and cannot be listened to there', () => {
    const { path, bell, remove } = setUp();
    remove();
    expect(() => bell.ring()).not.toThrow();
    expect(
      listenForBell(
        path,
        () => {},
        () => {},
      ),
    ).toBeUndefined();
  });
});
