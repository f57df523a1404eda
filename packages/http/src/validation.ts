import { fieldPath, ValidationError } from '@svc/domain';
import type { z } from 'zod';

/** Parses `input` with `schema`; the first issue becomes a ValidationError naming its field. */
export function parseInput<T extends z.ZodType>(
  schema: T,
  input: unknown,
  root = 'body',
): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  // An unknown member is named itself, not its parent object.
  const path =
    issue.code === 'unrecognized_keys' ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
  throw new ValidationError(fieldPath(path as Array<string | number>, root), issue.message);
}

/** A version number from a path; NaN (a 400 from the domain) when it is not a whole number. */
export function parseVersionNumber(raw: string): number {
  return /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
}
