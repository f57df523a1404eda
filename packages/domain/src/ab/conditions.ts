/**
 * One targeting condition against one user (design/architecture.md, AB evaluation).
 *
 * - The attribute `user_id` is the request's user id; any other name is looked up among the
 *   request's own attributes (inherited object properties never count).
 * - `eq`/`in` hold when any value equals, `neq`/`not_in` when no value equals, and
 *   `contains`/`starts_with`/`ends_with` when any value is contained, a prefix, a suffix; all
 *   on the attribute's string form: strings as they are, numbers as `String(n)`, booleans as
 *   `true`/`false`. Comparisons are exact and case-sensitive.
 * - `gt`/`gte`/`lt`/`lte` compare the attribute with `values[0]` as numbers; see `toNumber`.
 * - `semver_gt`/`semver_lt`/`semver_eq` compare a string attribute with `values[0]` as
 *   versions; see `parseSemver`. A side that is not a version never matches.
 * - A missing, null, object or array attribute has no string form: it matches `neq` and
 *   `not_in` (no value equals it) and nothing else.
 */
import type { Condition } from './rules.ts';
import { compareSemver, parseSemver, type Semver } from './semver.ts';

/** The attributes sent with an evaluation request (any JSON values). */
export type Attributes = Readonly<Record<string, unknown>>;

/** A decimal number: optional sign, digits with an optional fraction (or a bare fraction), optional exponent. */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * An attribute or condition value as a number, or undefined when it is not one. Numbers count
 * when finite. Strings count when they are a plain decimal literal (`42`, `-3.5`, `+.5`, `1e3`)
 * whose value is finite: no surrounding spaces, no empty string, no hex/octal/binary, no
 * `Infinity`/`NaN`, no digit separators, which JavaScript's `Number()` alone would let through
 * or turn into 0. Booleans and everything else are not numbers.
 */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !DECIMAL.test(value)) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** The string form compared by the string operators; undefined when the value has none. */
export function stringForm(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return undefined;
}

/** The value a condition tests: the user id for `user_id`, else the attribute (own keys only). */
export function attributeValue(attribute: string, userId: string, attributes: Attributes): unknown {
  if (attribute === 'user_id') return userId;
  return Object.hasOwn(attributes, attribute) ? attributes[attribute] : undefined;
}

/** Orders two values as numbers; undefined when either is not a number. */
function numericOrder(actual: unknown, expected: string | undefined): number | undefined {
  const a = toNumber(actual);
  const e = toNumber(expected);
  if (a === undefined || e === undefined) return undefined;
  return a < e ? -1 : a > e ? 1 : 0;
}

/**
 * Parsed versions by text: rule values and app versions repeat across flags and requests.
 * Bounded, since attribute values come from callers; past the bound it starts over.
 */
const parsedVersions = new Map<string, Semver | null>();
const PARSED_VERSIONS_MAX = 4096;
/** Longer texts are parsed every time: the cache must not hold callers' large strings. */
const PARSED_VERSION_MAX_LENGTH = 64;

function cachedSemver(text: string): Semver | undefined {
  if (text.length > PARSED_VERSION_MAX_LENGTH) return parseSemver(text);
  let parsed = parsedVersions.get(text);
  if (parsed === undefined) {
    if (parsedVersions.size >= PARSED_VERSIONS_MAX) parsedVersions.clear();
    parsed = parseSemver(text) ?? null;
    parsedVersions.set(text, parsed);
  }
  return parsed ?? undefined;
}

/** Orders two values as versions; undefined when either is not a version. */
function semverOrder(actual: unknown, expected: string | undefined): number | undefined {
  if (typeof actual !== 'string' || expected === undefined) return undefined;
  const a = cachedSemver(actual);
  const e = cachedSemver(expected);
  return a === undefined || e === undefined ? undefined : compareSemver(a, e);
}

/** Whether the condition holds for this user. */
export function matchesCondition(
  condition: Condition,
  userId: string,
  attributes: Attributes,
): boolean {
  const { operator, values } = condition;
  const actual = attributeValue(condition.attribute, userId, attributes);
  const text = stringForm(actual);
  const expected = values[0];
  switch (operator) {
    case 'eq':
    case 'in':
      return text !== undefined && values.includes(text);
    case 'neq':
    case 'not_in':
      return text === undefined || !values.includes(text);
    case 'contains':
      return text !== undefined && values.some((v) => text.includes(v));
    case 'starts_with':
      return text !== undefined && values.some((v) => text.startsWith(v));
    case 'ends_with':
      return text !== undefined && values.some((v) => text.endsWith(v));
    case 'gt':
      return holds(numericOrder(actual, expected), (o) => o > 0);
    case 'gte':
      return holds(numericOrder(actual, expected), (o) => o >= 0);
    case 'lt':
      return holds(numericOrder(actual, expected), (o) => o < 0);
    case 'lte':
      return holds(numericOrder(actual, expected), (o) => o <= 0);
    case 'semver_gt':
      return holds(semverOrder(actual, expected), (o) => o > 0);
    case 'semver_lt':
      return holds(semverOrder(actual, expected), (o) => o < 0);
    case 'semver_eq':
      return holds(semverOrder(actual, expected), (o) => o === 0);
    default:
      // Flags are validated when saved; an operator this code does not know never matches.
      return false;
  }
}

function holds(order: number | undefined, test: (order: number) => boolean): boolean {
  return order !== undefined && test(order);
}
