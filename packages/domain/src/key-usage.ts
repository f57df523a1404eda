/**
 * When each API key was last used: collected in memory on the request path and written in one
 * batch now and then, so no request waits on a write.
 */
import type { Clock, Store } from './ports.ts';

export class KeyUsage {
  private used = new Set<string>();

  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  /** Notes a use; cheap enough for every request. */
  record = (keyId: string): void => {
    this.used.add(keyId);
  };

  /** Writes `last_used_at` for the keys used since the last flush. */
  async flush(): Promise<void> {
    if (this.used.size === 0) return;
    const ids = [...this.used];
    this.used = new Set();
    const at = this.deps.clock.now();
    await this.deps.store.transaction((tx) => tx.touchApiKeys(ids, at));
  }
}
