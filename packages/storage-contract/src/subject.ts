import type { ChangeFeed, Clock, Store } from '@svc/domain';

export interface FeedOptions {
  /**
   * No wake-ups of its own (no polling, no notifications, no periodic catch-up): the feed reads
   * only when it starts following and on `poke()`. Lets the suite see what `poke()` does.
   */
  passive?: boolean;
}

/** One fresh, empty, migrated database for one test, and ways to look at it. */
export interface StoreSubject {
  store: Store;
  /**
   * A new change feed on the same database. The suite closes it after the test, maybe a second
   * time: `close()` must be harmless when repeated, and `poke()` after it a no-op.
   */
  feed: (options?: FeedOptions) => ChangeFeed;
  /**
   * A second, independent Store on the same database (another process in real life), using the
   * same clock. The suite closes it after the test.
   */
  openAnother?: () => Promise<Store>;
  /** Raw SQL read for persistence checks (the schema is shared by every adapter). */
  rawRows: (sql: string) => Promise<Record<string, unknown>[]>;
  /** Closes `store` and removes the database; runs after the suite closed feeds and others. */
  cleanup: () => Promise<void>;
}

export interface SubjectContext {
  /** The clock the store must use for every time it writes. */
  clock: Clock;
}

export type MakeStoreSubject = (context: SubjectContext) => Promise<StoreSubject>;
