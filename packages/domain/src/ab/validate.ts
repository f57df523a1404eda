import { ValidationError } from '../errors.ts';
import type { FlagEntry } from '../model.ts';
import { CONTROL_CHARACTER, textLength } from '../names.ts';
import { OPERATORS, type Operator } from './rules.ts';

/**
 * The limits of a flag's targeting: the one set that the domain checks and the management API's
 * schema is built from, so the two cannot disagree.
 */
export const TARGETING_LIMITS = {
  /** Rules of one flag. */
  rules: 100,
  /** Conditions of one rule (at least one). */
  conditions: 20,
  /** Values of one condition (at least one). */
  values: 1000,
  /** Characters (code points) of one condition value. */
  valueLength: 1024,
  /** Characters of an attribute name (at least one). */
  attributeLength: 256,
  /** Characters of a salt. */
  saltLength: 256,
} as const;

const L = TARGETING_LIMITS;

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
  if (
    flag.salt !== null &&
    (typeof flag.salt !== 'string' ||
      textLength(flag.salt) > L.saltLength ||
      CONTROL_CHARACTER.test(flag.salt))
  ) {
    throw new ValidationError(
      'salt',
      `must be a string of at most ${L.saltLength} characters without control characters`,
    );
  }
  if (!Array.isArray(flag.rules) || flag.rules.length > L.rules) {
    throw new ValidationError('rules', `must be a list of at most ${L.rules} rules`);
  }
  flag.rules.forEach((rule, i) => {
    if (typeof rule.result !== 'boolean')
      throw new ValidationError(`rules[${i}].result`, 'must be a boolean');
    if (
      !Array.isArray(rule.conditions) ||
      rule.conditions.length === 0 ||
      rule.conditions.length > L.conditions
    ) {
      throw new ValidationError(
        `rules[${i}].conditions`,
        `must be a list of 1..${L.conditions} conditions`,
      );
    }
    rule.conditions.forEach((c, j) => {
      const at = `rules[${i}].conditions[${j}]`;
      if (
        typeof c.attribute !== 'string' ||
        c.attribute.length === 0 ||
        textLength(c.attribute) > L.attributeLength
      ) {
        throw new ValidationError(`${at}.attribute`, `must be 1..${L.attributeLength} characters`);
      }
      if (!OPERATORS.includes(c.operator as Operator)) {
        throw new ValidationError(`${at}.operator`, `must be one of ${OPERATORS.join(', ')}`);
      }
      if (
        !Array.isArray(c.values) ||
        c.values.length === 0 ||
        c.values.length > L.values ||
        !c.values.every((v) => typeof v === 'string' && textLength(v) <= L.valueLength)
      ) {
        throw new ValidationError(
          `${at}.values`,
          `must be a list of 1..${L.values} strings of at most ${L.valueLength} characters`,
        );
      }
    });
  });
}
