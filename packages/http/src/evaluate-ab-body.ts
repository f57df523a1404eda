/**
 * The evaluate-ab request body on the wire (`flags`, `user_id`, `attributes`), parsed into the
 * domain's typed input within the domain's limits.
 */
import {
  ATTRIBUTE_NAME_MAX_LENGTH,
  ATTRIBUTE_VALUE_MAX_LENGTH,
  ATTRIBUTES_MAX_ENTRIES,
  EVALUATE_AB_MAX_FLAGS,
  isItemKey,
  ITEM_KEY_MAX_LENGTH,
  USER_ID_MAX_LENGTH,
  ValidationError,
  type Attributes,
  type EvaluateAbInput,
} from '@svc/domain';

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
 * Validates an evaluate-ab body: `flags` 1..100 item keys (a repeated key is kept once),
 * `user_id` 1..256 characters, optional `attributes`, an object of at most 50 entries whose
 * names have 1..256 characters and whose string values have at most 1024 characters. Other
 * members are ignored. Throws a ValidationError naming the first failing field.
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

  const userId = parseUserId(body['user_id'], 'user_id');
  const attributes = parseAttributes(body['attributes'], 'attributes');

  const unique = new Set(flags as string[]);
  return {
    flags: unique.size === flags.length ? (flags as string[]) : [...unique],
    userId,
    attributes,
  };
}

/** A user id: 1..256 characters of well-formed Unicode; errors name it `field`. */
export function parseUserId(userId: unknown, field: string): string {
  if (
    typeof userId !== 'string' ||
    userId.length === 0 ||
    codePointLength(userId, USER_ID_MAX_LENGTH) > USER_ID_MAX_LENGTH
  ) {
    throw new ValidationError(field, `must be a string of 1..${USER_ID_MAX_LENGTH} characters`);
  }
  if (LONE_SURROGATE.test(userId)) {
    throw new ValidationError(field, 'must be well-formed Unicode (no lone surrogates)');
  }
  return userId;
}

/**
 * Attributes: absent (none), or an object of at most 50 entries whose names have 1..256
 * characters and whose string values have at most 1024 characters (see the domain's
 * ATTRIBUTE_VALUE_MAX_LENGTH for why only strings); errors name `field`.
 */
export function parseAttributes(attributes: unknown, field: string): Attributes {
  if (attributes === undefined) return {};
  if (!isPlainObject(attributes)) {
    throw new ValidationError(field, 'must be an object when present');
  }
  const names = Object.keys(attributes);
  if (names.length > ATTRIBUTES_MAX_ENTRIES) {
    throw new ValidationError(field, `must have at most ${ATTRIBUTES_MAX_ENTRIES} entries`);
  }
  for (const name of names) {
    if (
      name.length === 0 ||
      codePointLength(name, ATTRIBUTE_NAME_MAX_LENGTH) > ATTRIBUTE_NAME_MAX_LENGTH
    ) {
      throw new ValidationError(
        field,
        `attribute names must have 1..${ATTRIBUTE_NAME_MAX_LENGTH} characters`,
      );
    }
    const value = attributes[name];
    if (
      typeof value === 'string' &&
      codePointLength(value, ATTRIBUTE_VALUE_MAX_LENGTH) > ATTRIBUTE_VALUE_MAX_LENGTH
    ) {
      throw new ValidationError(
        `${field}.${name}`,
        `must be at most ${ATTRIBUTE_VALUE_MAX_LENGTH} characters`,
      );
    }
  }
  return attributes;
}
