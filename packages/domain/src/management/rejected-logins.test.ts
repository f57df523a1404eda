import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../model.ts';
import type { Store, StoreWriter } from '../ports.ts';
import { CONSOLE_AUDIT_ID } from './audit-log.ts';
import { RejectedLogins } from './rejected-logins.ts';

/** A store that only records audit rows, and a clock the test moves. */
function subject(options: { windowMs?: number; maxAddresses?: number } = {}) {
  const rows: Array<Omit<AuditEntry, 'id' | 'at'>> = [];
  const tx = { appendAudit: async (row: Omit<AuditEntry, 'id' | 'at'>) => void rows.push(row) };
  const store = {
    transaction: <T>(fn: (tx: StoreWriter) => Promise<T>) => fn(tx as unknown as StoreWriter),
  } as Pick<Store, 'transaction'>;
  const clock = { t: 1_000_000, now: () => clock.t };
  return { rows, clock, logins: new RejectedLogins({ store, clock }, options) };
}

describe('RejectedLogins', () => {
  it('writes the first rejection at once and counts the rest into one row per window', async () => {
    const { rows, clock, logins } = subject({ windowMs: 60_000 });
    await logins.record('10.0.0.7', 'wrong');
    expect(rows).toEqual([
      {
        workspaceId: CONSOLE_AUDIT_ID,
        actor: 'unauthenticated',
        action: 'login.fail',
        target: '1 rejected bearer token (1 wrong) from 10.0.0.7 ×1',
      },
    ]);
    for (let i = 0; i < 10_000; i++) {
      clock.t += 1;
      expect(
        logins.record(i % 3 ? '10.0.0.7' : '::1', i % 2 ? 'wrong' : 'missing'),
      ).toBeUndefined();
    }
    expect(rows).toHaveLength(1);
    await logins.flush();
    expect(rows).toHaveLength(2);
    expect(rows[1]!.target).toBe(
      '10000 rejected bearer tokens (5000 wrong, 5000 missing) from ::1 ×3334, 10.0.0.7 ×6666',
    );
    await logins.flush();
    expect(rows).toHaveLength(2);
  });

  it('writes at once again after a quiet window', async () => {
    const { rows, clock, logins } = subject({ windowMs: 60_000 });
    await logins.record('a', 'missing');
    clock.t += 59_999;
    expect(logins.record('a', 'missing')).toBeUndefined();
    clock.t += 1;
    await logins.record('b', 'wrong');
    expect(rows.map((r) => r.target)).toEqual([
      '1 rejected bearer token (1 missing) from a ×1',
      '2 rejected bearer tokens (1 wrong, 1 missing) from a ×1, b ×1',
    ]);
  });

  it('names at most maxAddresses addresses and counts the others', async () => {
    const { rows, logins } = subject({ maxAddresses: 2 });
    await logins.record('a', 'wrong');
    for (const address of ['b', 'c', 'd', 'd', 'b']) logins.record(address, 'wrong');
    await logins.flush();
    expect(rows[1]!.target).toBe('5 rejected bearer tokens (5 wrong) from b ×2, c ×1, others ×2');
  });
});
