/**
 * `POST /v1/flags/evaluate-ab`: evaluates the requested flags of the caller's view for one user.
 * The http adapter authenticates, calls `authorizeEvaluateAb` before it reads the body, parses
 * the body into an `EvaluateAbInput` within the limits below, then calls `evaluateAb`.
 */
import { AbAddonInactiveError, BillingOverdueError } from '../errors.ts';
import type { Principal } from '../views/read-model.ts';
import type { View } from '../views/view.ts';
import type { Attributes } from './conditions.ts';
import { evaluateFlag } from './evaluate.ts';

/** The limits of one evaluation request (the contract's, v1.1 included). */
export const EVALUATE_AB_MAX_FLAGS = 100;
export const USER_ID_MAX_LENGTH = 256;
export const ATTRIBUTES_MAX_ENTRIES = 50;
export const ATTRIBUTE_NAME_MAX_LENGTH = 256;
/**
 * A string attribute value, in characters (1 KiB of ASCII). Numbers and booleans are short by
 * nature; objects and arrays only ever match `neq`/`not_in` whatever they hold, so their size
 * costs no evaluation time (the body's 64 KiB and the JSON depth limit bound them).
 */
export const ATTRIBUTE_VALUE_MAX_LENGTH = 1024;
/** The request body, in bytes. */
export const EVALUATE_AB_BODY_MAX_BYTES = 64 * 1024;

/** A validated evaluation request. */
export interface EvaluateAbInput {
  /** Flag keys, each once (a request naming a key twice is answered once for it). */
  flags: readonly string[];
  userId: string;
  attributes: Attributes;
}

export interface EvaluateAbResult {
  /** Every requested key, true or false (unknown and inactive flags are false). */
  results: Record<string, boolean>;
}

/**
 * Who may evaluate, checked before the body is read: billing 402 (it gates evaluate-ab as it
 * gates writes), then the add-on 403, so a caller who may not evaluate at all hears that rather
 * than how to fix a body that could never pass.
 */
export function authorizeEvaluateAb(principal: Principal): void {
  if (principal.workspace.billingStatus === 'overdue') throw new BillingOverdueError();
  if (!principal.project.abTesting) throw new AbAddonInactiveError();
}

/** Evaluates every requested flag of `view` for the input's user. */
export function evaluateAb(view: View, input: EvaluateAbInput): EvaluateAbResult {
  const results: Record<string, boolean> = {};
  for (const key of input.flags) {
    const value = evaluateFlag(view.flags.get(key), input.userId, input.attributes);
    // A flag may be named `__proto__`: it must still appear as a plain key. (A prototype-less
    // object would do too, but serializes at half the speed.)
    if (key === '__proto__')
      Object.defineProperty(results, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else results[key] = value;
  }
  return { results };
}
