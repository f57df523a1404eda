/**
 * Sync quarantine: a key that syncs more than `max` times within `windowMs` is answered
 * `sync_quarantined` for `quarantineMs`; 304s count; the count starts afresh when a quarantine
 * ends. What is counted is a key, or a public key per client address (see `guard`). A pure
 * rule over a clock, so the sync hot path stays synchronous.
 */
import { SyncQuarantinedError } from './errors.ts';
import type { Clock } from './ports.ts';
import type { SyncGuard } from './sync.ts';

export interface SyncQuarantineOptions {
  max: number;
  windowMs: number;
  quarantineMs: number;
  clock: Clock;
}

interface KeyState {
  windowStart: number;
  count: number;
  quarantinedUntil: number;
}

/** Memory per key is three numbers; idle keys are swept once a window. */
export class SyncQuarantine {
  private readonly keys = new Map<string, KeyState>();
  private lastSweep = 0;

  constructor(private readonly options: SyncQuarantineOptions) {}

  /** Counts one sync by `keyId`; throws SyncQuarantinedError while the key is quarantined. */
  check(keyId: string): void {
    const now = this.options.clock.now();
    this.sweep(now);
    let state = this.keys.get(keyId);
    if (state && state.quarantinedUntil > now) {
      throw new SyncQuarantinedError((state.quarantinedUntil - now) / 1000);
    }
    if (
      !state ||
      state.quarantinedUntil !== 0 ||
      now - state.windowStart >= this.options.windowMs
    ) {
      state = { windowStart: now, count: 0, quarantinedUntil: 0 };
      this.keys.set(keyId, state);
    }
    state.count += 1;
    if (state.count > this.options.max) {
      state.quarantinedUntil = now + this.options.quarantineMs;
      throw new SyncQuarantinedError(this.options.quarantineMs / 1000);
    }
  }

  /**
   * The guard for `syncView`: a secret key is counted per key; a public key, which every
   * browser of an app shares, per (key, client address), so one visitor cannot get the key
   * quarantined for everyone.
   */
  get guard(): SyncGuard {
    return (principal, client) =>
      this.check(principal.keyType === 'pk' ? `${principal.key.id} ${client}` : principal.key.id);
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.options.windowMs) return;
    this.lastSweep = now;
    for (const [id, s] of this.keys) {
      if (s.quarantinedUntil <= now && now - s.windowStart >= this.options.windowMs)
        this.keys.delete(id);
    }
  }
}
