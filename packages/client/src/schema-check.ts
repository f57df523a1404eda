/** `getConfigAs`: a config's value checked and converted by a Standard Schema validator. */
import type { StandardSchemaV1 } from '@standard-schema/spec';

/**
 * The schema's output for `value`.
 *
 * @throws TypeError when the value does not satisfy the schema (the issues are in `cause`), or
 *   when the schema validates asynchronously.
 */
export function checkConfig<S extends StandardSchemaV1>(
  key: string,
  value: unknown,
  schema: S,
): StandardSchemaV1.InferOutput<S> {
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) {
    throw new TypeError('getConfigAs needs a schema that validates synchronously');
  }
  if (result.issues !== undefined) {
    const issues = result.issues
      .map((issue) => {
        const path = issue.path
          ?.map((p) => (typeof p === 'object' ? String(p.key) : String(p)))
          .join('.');
        return path ? `${path}: ${issue.message}` : issue.message;
      })
      .join('; ');
    throw new TypeError(`config "${key}" does not match the schema: ${issues}`, {
      cause: result.issues,
    });
  }
  return result.value;
}
