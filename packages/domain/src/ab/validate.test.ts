import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import { validateFlagTargeting } from './validate.ts';

const targeting = (rolloutPercentage: number) => ({ rules: [], rolloutPercentage, salt: null });

describe('validateFlagTargeting rollout', () => {
  it('accepts every two-decimal percentage from 0 to 100 (0.07 * 100 is not whole in floats)', () => {
    const rejected: number[] = [];
    for (let k = 0; k <= 10_000; k++) {
      const p = Number(`${Math.floor(k / 100)}.${String(k % 100).padStart(2, '0')}`);
      try {
        validateFlagTargeting(targeting(p));
      } catch {
        rejected.push(p);
      }
    }
    expect(rejected).toEqual([]);
  });

  it.each([-0.01, 100.01, 12.345, 0.001, NaN, Infinity])('rejects %d', (p) => {
    expect(() => validateFlagTargeting(targeting(p))).toThrow(ValidationError);
  });
});
