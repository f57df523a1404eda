/**
 * Evaluates one flag for one user (design/architecture.md, AB evaluation): an unknown or
 * inactive flag is false; otherwise the first targeting rule whose conditions all hold gives
 * the answer; otherwise the user's bucket decides against the rollout percentage.
 */
import type { FlagEntry } from '../model.ts';
import { bucketOf, bucketSalt, inRollout } from './bucket.ts';
import { matchesCondition, type Attributes } from './conditions.ts';
import type { TargetingRule } from './rules.ts';

/** Whether every condition of the rule holds for this user. */
export function matchesRule(rule: TargetingRule, userId: string, attributes: Attributes): boolean {
  return rule.conditions.every((condition) => matchesCondition(condition, userId, attributes));
}

/** The flag's answer for this user; `flag` undefined means the flag is unknown. */
export function evaluateFlag(
  flag: FlagEntry | undefined,
  userId: string,
  attributes: Attributes,
): boolean {
  if (!flag || !flag.isActive) return false;
  for (const rule of flag.rules) {
    if (matchesRule(rule, userId, attributes)) return rule.result;
  }
  return inRollout(bucketOf(bucketSalt(flag), userId), flag.rolloutPercentage);
}
