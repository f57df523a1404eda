import { describe, expect, it } from 'vitest';
import { SyncQuarantinedError } from './errors.ts';
import { SyncQuarantine } from './sync-quarantine.ts';
import type { Principal } from './views/read-model.ts';

describe('SyncQuarantine', () => {
  const make = () => {
    const clock = {
      t: 1_000_000,
      now() {
        return this.t;
      },
    };
    return {
      clock,
      q: new SyncQuarantine({ max: 3, windowMs: 60_000, quarantineMs: 300_000, clock }),
    };
  };

  it('quarantines the sync after max within the window, for the quarantine period', () => {
    const { clock, q } = make();
    for (let i = 0; i < 3; i++) q.check('k');
    expect(() => q.check('k')).toThrow(SyncQuarantinedError);
    clock.t += 299_000;
    try {
      q.check('k');
      expect.unreachable();
    } catch (error) {
      expect((error as SyncQuarantinedError).retryAfterSeconds).toBe(1);
    }
    q.check('other'); // other keys are not affected
    clock.t += 1_000;
    for (let i = 0; i < 3; i++) q.check('k'); // recovered, and the count started afresh
    expect(() => q.check('k')).toThrow(SyncQuarantinedError);
  });

  it('starts a new window after windowMs', () => {
    const { clock, q } = make();
    for (let i = 0; i < 3; i++) q.check('k');
    clock.t += 60_000;
    for (let i = 0; i < 3; i++) q.check('k');
    expect(() => q.check('k')).toThrow(SyncQuarantinedError);
  });

  it('counts a secret key per key, and a public key per (key, client address)', () => {
    const { q } = make();
    const principal = (id: string, keyType: 'sk' | 'pk') =>
      ({ key: { id }, keyType }) as unknown as Principal;
    const pk = principal('p', 'pk');
    for (let i = 0; i < 3; i++) q.guard(pk, '10.0.0.1');
    expect(() => q.guard(pk, '10.0.0.1')).toThrow(SyncQuarantinedError);
    // Every other visitor of the app keeps syncing with the same public key.
    for (let i = 0; i < 3; i++) q.guard(pk, '10.0.0.2');
    const sk = principal('s', 'sk');
    for (let i = 0; i < 3; i++) q.guard(sk, `10.0.1.${i}`);
    expect(() => q.guard(sk, '10.0.1.9')).toThrow(SyncQuarantinedError);
  });
});
