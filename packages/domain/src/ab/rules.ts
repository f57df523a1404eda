/** Targeting rules of a flag (see design/architecture.md, AB evaluation). */

export const OPERATORS = [
  'eq',
  'neq',
  'in',
  'not_in',
  'contains',
  'starts_with',
  'ends_with',
  'gt',
  'gte',
  'lt',
  'lte',
  'semver_gt',
  'semver_lt',
  'semver_eq',
] as const;

export type Operator = (typeof OPERATORS)[number];

export interface Condition {
  /** `user_id` is the request's user id; any other name is looked up in the attributes. */
  attribute: string;
  operator: Operator;
  values: string[];
}

/** All conditions must hold for the rule to match; the first matching rule gives `result`. */
export interface TargetingRule {
  conditions: Condition[];
  result: boolean;
}
