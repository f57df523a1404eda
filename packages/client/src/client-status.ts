/**
 * What an app sees of a client besides its values: the status (ready, stream connected, last
 * sync, last error) and the change sets its change listeners get; and the listener plumbing
 * that the view cache (view-cache.ts) uses for both.
 */
import type { ServiceLogger } from './service-logger.ts';
import type { Change } from './snapshot.ts';

/** What changed in the cache, as one batch. */
export interface ChangeSet {
  /** The cache's revision after the change. */
  revision: number;
  /** `sync` for a snapshot that replaced the cache, `stream` for pushed changes. */
  source: 'sync' | 'stream';
  /** Every item that was added, changed or removed; read the new values from the client. */
  changes: readonly Change[];
}

/** Called after the cache changed. Thrown errors are logged and otherwise ignored. */
export type ChangeListener = (changeSet: ChangeSet) => void;

/** What an app can show about the client; a new object whenever something in it changed. */
export interface ServiceStatus {
  /** The cache holds values: from a successful sync (or a browser's `bootstrap`). */
  readonly ready: boolean;
  /** The change stream is connected. */
  readonly streamConnected: boolean;
  /** When the last sync succeeded (a 304 counts), or null before the first. */
  readonly syncedAt: Date | null;
  /** The last sync or stream failure; null again once a sync succeeds or the stream connects. */
  readonly error: Error | null;
}

/** Adds `listener` to `listeners`; returns the function that removes it. */
export function subscribe<T>(listeners: Set<T>, listener: T): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Calls each listener; one that throws is logged and the others still run. */
export function notify<T>(
  listeners: Set<(value: T) => void>,
  value: T,
  logger: ServiceLogger,
): void {
  for (const listener of listeners) {
    try {
      listener(value);
    } catch (error) {
      logger.error('a listener threw', error);
    }
  }
}
