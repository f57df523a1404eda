/**
 * Rejected console sign-ins (requests with a missing or wrong bearer token), audited without
 * letting an attacker flood the audit table: the first rejection after a quiet window is written
 * at once, later ones are counted in memory and written as one summary row by `flush()`, which the
 * app calls every `windowMs`. So at most two rows per window, whatever the rate of attempts, and
 * memory holds at most `maxAddresses` addresses.
 */
import type { Clock, Store } from '../ports.ts';
import { CONSOLE_AUDIT_ID } from './audit-log.ts';

export type RejectionReason = 'missing' | 'wrong';

export interface RejectedLoginsOptions {
  windowMs: number;
  /** Distinct client addresses named in one row; the rest are counted as "others". */
  maxAddresses: number;
}

export class RejectedLogins {
  private readonly options: RejectedLoginsOptions;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  private pending = newTally();

  constructor(
    private readonly deps: { store: Pick<Store, 'transaction'>; clock: Clock },
    options: Partial<RejectedLoginsOptions> = {},
  ) {
    this.options = { windowMs: 60_000, maxAddresses: 10, ...options };
  }

  /** Counts one rejection; writes it at once (the returned promise) after a quiet window. */
  record(address: string, reason: RejectionReason): Promise<void> | undefined {
    const tally = this.pending;
    tally.total += 1;
    tally.byReason[reason] += 1;
    const known = tally.byAddress.get(address);
    if (known !== undefined) tally.byAddress.set(address, known + 1);
    else if (tally.byAddress.size < this.options.maxAddresses) tally.byAddress.set(address, 1);
    else tally.others += 1;
    if (this.deps.clock.now() - this.lastWriteAt < this.options.windowMs) return undefined;
    return this.flush();
  }

  /** Writes what was counted since the last row, if anything. */
  async flush(): Promise<void> {
    const tally = this.pending;
    if (tally.total === 0) return;
    this.pending = newTally();
    this.lastWriteAt = this.deps.clock.now();
    await this.deps.store.transaction((tx) =>
      tx.appendAudit({
        workspaceId: CONSOLE_AUDIT_ID,
        actor: 'unauthenticated',
        action: 'login.fail',
        target: describe(tally),
      }),
    );
  }
}

interface Tally {
  total: number;
  byReason: Record<RejectionReason, number>;
  byAddress: Map<string, number>;
  others: number;
}

function newTally(): Tally {
  return { total: 0, byReason: { missing: 0, wrong: 0 }, byAddress: new Map(), others: 0 };
}

/** `3 rejected bearer tokens (2 wrong, 1 missing) from 10.0.0.7 ×2, ::1 ×1` */
function describe(t: Tally): string {
  const reasons = (['wrong', 'missing'] as const)
    .filter((r) => t.byReason[r] > 0)
    .map((r) => `${t.byReason[r]} ${r}`);
  const from = [...t.byAddress].map(([address, n]) => `${address} ×${n}`);
  if (t.others > 0) from.push(`others ×${t.others}`);
  const noun = t.total === 1 ? 'rejected bearer token' : 'rejected bearer tokens';
  return `${t.total} ${noun} (${reasons.join(', ')}) from ${from.join(', ')}`;
}
