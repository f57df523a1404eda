import { ValidationError } from '../errors.ts';
import type { FlagEntry } from '../model.ts';
import { OPERATORS, type Operator } from './rules.ts';

const MAX_RULES = 100;
const MAX_CONDITIONS = 20;
const MAX_VALUES = 1000;

/** Validates a flag's targeting: known operators, string values, a 0..100 two-decimal rollout. */
export function validateFlagTargeting(
  flag: Pick<FlagEntry, 'rules' | 'rolloutPercentage' | 'salt'>,
): void {
  const p = flag.rolloutPercentage;
  if (
    typeof p !== 'number' ||
    !Number.isFinite(p) ||
    p < 0 ||
    p > 100 ||
    // Not `p * 100` being whole: 0.07 * 100 is 7.000000000000001. Division is correctly
    // rounded, so k / 100 is exactly the number a two-decimal literal k/100 parses to.
    Math.round(p * 100) / 100 !== p
  ) {
    throw new ValidationError(
      'rollout_percentage',
      'must be a number from 0 to 100 with at most two decimals',
    );
  }
  if (flag.salt !== null && (typeof flag.salt !== 'string' || flag.salt.length > 256)) {
    throw new ValidationError('salt', 'must be a string of at most 256 characters');
  }
  if (!Array.isArray(flag.rules) || flag.rules.length > MAX_RULES) {
    throw new ValidationError('rules', `must be a list of at most ${MAX_RULES} rules`);
  }
  flag.rules.forEach((rule, i) => {
    if (typeof rule.result !== 'boolean')
      throw new ValidationError(`rules[${i}].result`, 'must be a boolean');
    if (
      !Array.isArray(rule.conditions) ||
      rule.conditions.length === 0 ||
      rule.conditions.length > MAX_CONDITIONS
    ) {
      throw new ValidationError(
        `rules[${i}].conditions`,
        `must be a list of 1..${MAX_CONDITIONS} conditions`,
      );
    }
    rule.conditions.forEach((c, j) => {
      const at = `rules[${i}].conditions[${j}]`;
      if (typeof c.attribute !== 'string' || c.attribute.length === 0 || c.attribute.length > 256) {
        throw new ValidationError(`${at}.attribute`, 'must be a non-empty string');
      }
      if (!OPERATORS.includes(c.operator as Operator)) {
        throw new ValidationError(`${at}.operator`, `must be one of ${OPERATORS.join(', ')}`);
      }
      if (
        !Array.isArray(c.values) ||
        c.values.length === 0 ||
        c.values.length > MAX_VALUES ||
        !c.values.every((v) => typeof v === 'string')
      ) {
        throw new ValidationError(`${at}.values`, `must be a list of 1..${MAX_VALUES} strings`);
      }
    });
  });
}
