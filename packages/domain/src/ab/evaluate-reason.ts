/**
 * A flag's answer for one user together with why (OpenFeature's resolution reasons), for the
 * OpenFeature endpoints. Decides exactly as `evaluateFlag` does; kept apart so that evaluate-ab,
 * which needs the boolean alone, allocates nothing per flag.
 */
import type { FlagEntry } from '../model.ts';
import { BUCKET_COUNT, bucketOf, bucketSalt, inRollout } from './bucket.ts';
import type { Attributes } from './conditions.ts';
import { matchesRule } from './evaluate.ts';

/**
 * `TARGETING_MATCH`: a targeting rule decided. `SPLIT`: the user's rollout bucket decided.
 * `DISABLED`: the flag is off. `STATIC`: every user gets this answer (no rule matched and the
 * rollout admits everybody or nobody), or the flag was not evaluated per user at all.
 */
export type EvaluationReason = 'TARGETING_MATCH' | 'SPLIT' | 'DISABLED' | 'STATIC';

export interface ReasonedValue {
  readonly value: boolean;
  readonly reason: EvaluationReason;
}

// Shared answers: an evaluation allocates nothing.
const answers = {
  disabled: { value: false, reason: 'DISABLED' },
  matchTrue: { value: true, reason: 'TARGETING_MATCH' },
  matchFalse: { value: false, reason: 'TARGETING_MATCH' },
  splitTrue: { value: true, reason: 'SPLIT' },
  splitFalse: { value: false, reason: 'SPLIT' },
  staticTrue: { value: true, reason: 'STATIC' },
  staticFalse: { value: false, reason: 'STATIC' },
} as const satisfies Record<string, ReasonedValue>;

/** The answer of a flag that is not evaluated per user: its `is_active`. */
export function staticFlagValue(flag: FlagEntry): ReasonedValue {
  return flag.isActive ? answers.staticTrue : answers.staticFalse;
}

/** Whether a rollout of `percentage` admits some users and not others. */
export function rolloutSplits(percentage: number): boolean {
  const threshold = Math.round(percentage * 100);
  return threshold > 0 && threshold < BUCKET_COUNT;
}

/** The flag's answer for this user, as `evaluateFlag` gives it, and the reason. */
export function evaluateFlagWithReason(
  flag: FlagEntry,
  userId: string,
  attributes: Attributes,
): ReasonedValue {
  if (!flag.isActive) return answers.disabled;
  for (const rule of flag.rules) {
    if (matchesRule(rule, userId, attributes)) {
      return rule.result ? answers.matchTrue : answers.matchFalse;
    }
  }
  const inside = inRollout(bucketOf(bucketSalt(flag), userId), flag.rolloutPercentage);
  if (rolloutSplits(flag.rolloutPercentage)) return inside ? answers.splitTrue : answers.splitFalse;
  return inside ? answers.staticTrue : answers.staticFalse;
}

/** Whether a flag's answer can differ between users (it has rules or a partial rollout). */
export function flagVariesByUser(flag: FlagEntry): boolean {
  return flag.isActive && (flag.rules.length > 0 || rolloutSplits(flag.rolloutPercentage));
}
