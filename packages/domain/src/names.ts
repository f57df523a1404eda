import { ValidationError } from './errors.ts';

/** Workspace, project and service slugs. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Keys of configs, flags and secrets: dot-separated segments of `[A-Za-z0-9_-]`. */
export const ITEM_KEY_PATTERN = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
export const ITEM_KEY_MAX_LENGTH = 256;
/** Display names of workspaces, projects, services and API keys. */
export const NAME_MAX_LENGTH = 200;
/**
 * Control characters (NUL, newlines, DEL, C1): never part of a name or a salt. PostgreSQL cannot
 * store NUL in text at all, and a newline in a name would forge lines where names are shown.
 */
export const CONTROL_CHARACTER = /\p{Cc}/u;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What a slug, an item key and a name must be, as errors say it. */
export const SLUG_RULE = 'must be 1..63 lowercase letters, digits or inner hyphens';
export const ITEM_KEY_RULE = `must be 1..${ITEM_KEY_MAX_LENGTH} characters of dot-separated [A-Za-z0-9_-] segments`;
export const NAME_RULE = `must be 1..${NAME_MAX_LENGTH} characters, not blank, without control characters`;

/**
 * Characters as JSON Schema's `maxLength` counts them: code points, so an emoji is one, not the
 * two UTF-16 units of `String.length`.
 */
export function textLength(value: string): number {
  let n = 0;
  for (const _ of value) n += 1;
  return n;
}

export function isSlug(value: string): boolean {
  return SLUG_PATTERN.test(value);
}

export function isItemKey(value: string): boolean {
  return value.length <= ITEM_KEY_MAX_LENGTH && ITEM_KEY_PATTERN.test(value);
}

export function assertSlug(field: string, value: string): void {
  if (!isSlug(value)) {
    throw new ValidationError(field, SLUG_RULE);
  }
}

export function assertItemKey(field: string, value: string): void {
  if (!isItemKey(value)) {
    throw new ValidationError(field, ITEM_KEY_RULE);
  }
}

/** A display name: 1..NAME_MAX_LENGTH characters, not blank, no control characters. */
export function isName(value: string): boolean {
  return (
    value.trim().length > 0 &&
    textLength(value) <= NAME_MAX_LENGTH &&
    !CONTROL_CHARACTER.test(value) &&
    isWellFormedText(value)
  );
}

export function assertName(field: string, value: string): void {
  if (!isName(value)) throw new ValidationError(field, NAME_RULE);
}

/**
 * Text that encodes to UTF-8 as it is: no lone surrogate (`"\ud800"` in JSON), which every
 * encoder would silently replace, so what was stored would not be what was sent.
 */
export function isWellFormedText(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}
