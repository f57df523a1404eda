/**
 * `POST /v1/flags/evaluate-ab`: evaluates the requested flags of the caller's view for one user.
 */
import { AbAddonInactiveError, BillingOverdueError, ValidationError } from '../errors.ts';
import { isItemKey, ITEM_KEY_MAX_LENGTH } from '../names.ts';
import type { ReadModel } from '../views/read-model.ts';
import type { Attributes } from './conditions.ts';
import { evaluateFlag } from './evaluate.ts';

export const EVALUATE_AB_MAX_FLAGS = 100;
export const USER_ID_MAX_LENGTH = 256;
export const ATTRIBUTES_MAX_ENTRIES = 50;
export const ATTRIBUTE_NAME_MAX_LENGTH = 256;

export interface EvaluateAbRequest {
  slug: string;
  apiKey: string | undefined;
  /** The parsed JSON body, not yet validated. */
  body: unknown;
}

/** The validated body. */
export interface EvaluateAbInput {
  flags: string[];
  userId: string;
  attributes: Attributes;
}

export interface EvaluateAbResult {
  /** Every requested key, true or false (unknown and inactive flags are false). */
  results: Record<string, boolean>;
}

/**
 * Authenticates, checks the workspace and project may use AB evaluation, validates the body
 * and evaluates every requested flag. Order of checks, each before anything the caller could
 * learn from the next: unknown workspace 404 and bad key 401 (`authenticate`), so a caller
 * without a valid key learns nothing about the workspace; then billing 402, which gates
 * evaluate-ab as it gates writes; then the add-on 403; only then the body 400, so a caller
 * who may not evaluate at all hears that rather than how to fix a body that could never pass.
 */
export function evaluateAb(model: ReadModel, request: EvaluateAbRequest): EvaluateAbResult {
  const principal = model.authenticate(request.slug, request.apiKey);
  if (principal.workspace.billingStatus === 'overdue') throw new BillingOverdueError();
  if (!principal.project.abTesting) throw new AbAddonInactiveError();
  const input = parseEvaluateAbBody(request.body);
  const view = model.view(principal.viewId);
  if (!view) throw new Error(`view ${principal.viewId} is not loaded`);
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Length in Unicode code points (what a user counts as characters), not UTF-16 units. */
function codePointLength(text: string, atMost: number): number {
  // Code points never outnumber UTF-16 units, so short strings need no counting.
  if (text.length <= atMost) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** A lone surrogate has no UTF-8 form: hashing would silently replace it and merge users. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Validates an evaluate-ab body: `flags` 1..100 item keys (duplicates allowed), `user_id`
 * 1..256 characters, optional `attributes`, an object of at most 50 entries whose names have
 * 1..256 characters and whose values are any JSON. Other members are ignored. Throws a
 * ValidationError naming the first failing field.
 */
export function parseEvaluateAbBody(body: unknown): EvaluateAbInput {
  if (!isPlainObject(body)) throw new ValidationError('body', 'must be a JSON object');

  const flags = body['flags'];
  if (!Array.isArray(flags) || flags.length === 0 || flags.length > EVALUATE_AB_MAX_FLAGS) {
    throw new ValidationError('flags', `must be a list of 1..${EVALUATE_AB_MAX_FLAGS} flag keys`);
  }
  flags.forEach((key: unknown, i) => {
    if (typeof key !== 'string' || !isItemKey(key)) {
      throw new ValidationError(
        `flags[${i}]`,
        `must be a flag key: 1..${ITEM_KEY_MAX_LENGTH} characters of dot-separated [A-Za-z0-9_-] segments`,
      );
    }
  });

  const userId = body['user_id'];
  if (
    typeof userId !== 'string' ||
    userId.length === 0 ||
    codePointLength(userId, USER_ID_MAX_LENGTH) > USER_ID_MAX_LENGTH
  ) {
    throw new ValidationError('user_id', `must be a string of 1..${USER_ID_MAX_LENGTH} characters`);
  }
  if (LONE_SURROGATE.test(userId)) {
    throw new ValidationError('user_id', 'must be well-formed Unicode (no lone surrogates)');
  }

  const attributes = body['attributes'];
  if (attributes !== undefined && !isPlainObject(attributes)) {
    throw new ValidationError('attributes', 'must be an object when present');
  }
  const names = attributes === undefined ? [] : Object.keys(attributes);
  if (names.length > ATTRIBUTES_MAX_ENTRIES) {
    throw new ValidationError('attributes', `must have at most ${ATTRIBUTES_MAX_ENTRIES} entries`);
  }
  for (const name of names) {
    if (
      name.length === 0 ||
      codePointLength(name, ATTRIBUTE_NAME_MAX_LENGTH) > ATTRIBUTE_NAME_MAX_LENGTH
    ) {
      throw new ValidationError(
        'attributes',
        `attribute names must have 1..${ATTRIBUTE_NAME_MAX_LENGTH} characters`,
      );
    }
  }

  return { flags: flags as string[], userId, attributes: attributes ?? {} };
}
