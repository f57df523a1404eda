/**
 * What the OpenFeature Remote Evaluation Protocol (OFREP) resolves a key to, from the caller's
 * view (contract.md, OFREP): a flag of that key is a boolean — evaluated per user exactly as
 * evaluate-ab would when the AB Testing add-on is on and billing is in order and the context
 * names a user, else its `is_active` — and otherwise a config of that key is its JSON value.
 * Secrets are never resolved: they are not among a view's flags or configs.
 */
import type { Attributes } from '../ab/conditions.ts';
import {
  evaluateFlagWithReason,
  staticFlagValue,
  type EvaluationReason,
} from '../ab/evaluate-reason.ts';
import type { FlagEntry } from '../model.ts';
import type { Principal } from '../views/read-model.ts';
import { parseItemId, type View } from '../views/view.ts';

/** A validated OFREP evaluation context. */
export interface OfrepContext {
  /** The user (the context's `targetingKey`); undefined when the context names none. */
  userId: string | undefined;
  /** Every other context entry. */
  attributes: Attributes;
}

/** `on`/`off` for flags; `default` for configs (some providers require a variant). */
export type OfrepVariant = 'on' | 'off' | 'default';

/** One resolved key. */
export interface OfrepResolution {
  key: string;
  /** The value as JSON text. */
  valueJson: string;
  reason: EvaluationReason;
  variant: OfrepVariant;
}

/**
 * Whether this caller's flags are evaluated per user: the project's AB Testing add-on is on and
 * its workspace's billing is in order (as evaluate-ab requires). Otherwise a flag is its
 * `is_active`; OFREP never refuses an evaluation for billing or the add-on.
 */
export function evaluatesPerUser(principal: Principal): boolean {
  return principal.project.abTesting && principal.workspace.billingStatus !== 'overdue';
}

/** A flag's OFREP resolution for the context. */
export function resolveOfrepFlag(
  flag: FlagEntry,
  perUser: boolean,
  context: OfrepContext,
): OfrepResolution {
  const { value, reason } =
    perUser && context.userId !== undefined
      ? evaluateFlagWithReason(flag, context.userId, context.attributes)
      : staticFlagValue(flag);
  return {
    key: flag.key,
    valueJson: value ? 'true' : 'false',
    reason,
    variant: value ? 'on' : 'off',
  };
}

/** A config's OFREP resolution: its value, the same for everyone. */
export function resolveOfrepConfig(key: string, valueJson: string): OfrepResolution {
  return { key, valueJson, reason: 'STATIC', variant: 'default' };
}

/** The key resolved for the context: a flag first, then a config; undefined when neither. */
export function resolveOfrepKey(
  view: View,
  perUser: boolean,
  key: string,
  context: OfrepContext,
): OfrepResolution | undefined {
  const flag = view.flags.get(key);
  if (flag) return resolveOfrepFlag(flag, perUser, context);
  const config = view.items.get(`config:${key}`);
  return config === undefined ? undefined : resolveOfrepConfig(key, config);
}

/** What a bulk evaluation walks through: every flag, then every config no flag hides. */
export interface OfrepEntries {
  /** Sorted by key. */
  flags: FlagEntry[];
  /** `[key, JSON text]`, sorted by key, without the keys of flags. */
  configs: Array<[string, string]>;
}

/** A view's flags and configs in the order of a bulk answer (equal views, equal order). */
export function ofrepEntries(view: View): OfrepEntries {
  const flags = [...view.flags.values()].sort((a, b) => compareKeys(a.key, b.key));
  const configs: Array<[string, string]> = [];
  for (const [id, json] of view.items) {
    const { kind, key } = parseItemId(id);
    if (kind === 'config' && !view.flags.has(key)) configs.push([key, json]);
  }
  configs.sort((a, b) => compareKeys(a[0], b[0]));
  return { flags, configs };
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
