import { ValidationError } from './errors.ts';

/** Workspace, project and service slugs. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Keys of configs, flags and secrets: dot-separated segments of `[A-Za-z0-9_-]`. */
export const ITEM_KEY_PATTERN = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
export const ITEM_KEY_MAX_LENGTH = 256;

export function isSlug(value: string): boolean {
  return SLUG_PATTERN.test(value);
}

export function isItemKey(value: string): boolean {
  return value.length <= ITEM_KEY_MAX_LENGTH && ITEM_KEY_PATTERN.test(value);
}

export function assertSlug(field: string, value: string): void {
  if (!isSlug(value)) {
    throw new ValidationError(field, 'must be 1..63 lowercase letters, digits or inner hyphens');
  }
}

export function assertItemKey(field: string, value: string): void {
  if (!isItemKey(value)) {
    throw new ValidationError(
      field,
      `must be 1..${ITEM_KEY_MAX_LENGTH} characters of dot-separated [A-Za-z0-9_-] segments`,
    );
  }
}
