import { ValidationError } from '@svc/domain';
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
  throw new ValidationError(fieldPath(path, root), issue.message);
}

/** `['rules', 0, 'values']` → `rules[0].values`. */
function fieldPath(path: ReadonlyArray<PropertyKey>, root: string): string {
  if (path.length === 0) return root;
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`))
    .join('');
}
