import { describe, expect, it } from 'vitest';
import { SyncQuarantinedError } from './errors.ts';
import { SyncQuarantine } from './sync-quarantine.ts';

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
});
