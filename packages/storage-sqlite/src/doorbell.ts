/**
 * The doorbell of a SQLite file: after each commit a store touches `<file>-bell`, and the change
 * feeds of every process on the file watch its folder (inotify on Linux) and look at once,
 * instead of at their next poll. Only a hint: the change log stays the truth, and the feeds still
 * poll, less often, for commits that ring no bell and for folders that cannot be watched.
 */
import { closeSync, futimesSync, openSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

export function bellPath(file: string): string {
  return `${file}-bell`;
}

/** The writer's side: `ring()` after a commit. */
export class Doorbell {
  private fd: number | undefined;

  constructor(private readonly path: string) {}

  ring(): void {
    try {
      // Created on the first ring; a new modification time wakes the watchers (IN_ATTRIB).
      this.fd ??= openSync(this.path, 'a', 0o600);
      const now = Date.now() / 1000;
      futimesSync(this.fd, now, now);
    } catch {
      // A bell that cannot ring only delays the feeds until their next poll.
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * The follower's side: `onRing` each time the bell at `path` rings. Undefined when the folder
 * cannot be watched; `onError` when a watch that started fails later (it is then closed).
 */
export function listenForBell(
  path: string,
  onRing: () => void,
  onError: () => void,
): FSWatcher | undefined {
  const name = basename(path);
  let watcher: FSWatcher;
  try {
    // Not persistent: watching never keeps the process alive by itself.
    watcher = watch(dirname(path), { persistent: false }, (_event, filename) => {
      if (filename === name) onRing();
    });
  } catch {
    return undefined;
  }
  watcher.on('error', () => {
    watcher.close();
    onError();
  });
  return watcher;
}
