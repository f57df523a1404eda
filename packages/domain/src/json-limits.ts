/**
 * Limits on JSON that arrives from outside: how deep it nests, and that its text is well formed.
 * Checked without recursion, so no input can exhaust the stack while being checked (and once
 * checked, recursive code such as a schema validator or JSON.stringify is safe on it).
 */
import { isWellFormedText } from './names.ts';

/** Containers (objects and arrays) nested in one another, at most: `[[1]]` is 2 deep. */
export const JSON_MAX_DEPTH = 64;

/** A value JSON can carry. */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type JsonPath = ReadonlyArray<string | number>;

export interface JsonFlaw {
  /** Where: object members and array indexes from the value checked. */
  path: JsonPath;
  message: string;
}

interface Visit {
  value: unknown;
  depth: number;
  parent: Visit | undefined;
  at: string | number | undefined;
}

/**
 * The first flaw of a parsed JSON value: nested deeper than `maxDepth`, or a string (or member
 * name) that is not well-formed Unicode. Undefined when there is none.
 */
export function findJsonFlaw(value: unknown, maxDepth = JSON_MAX_DEPTH): JsonFlaw | undefined {
  const stack: Visit[] = [{ value, depth: 0, parent: undefined, at: undefined }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    const v = visit.value;
    if (typeof v === 'string') {
      if (!isWellFormedText(v)) return flaw(visit, 'is not well-formed Unicode (a lone surrogate)');
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    const depth = visit.depth + 1;
    if (depth > maxDepth) return flaw(visit, `nests deeper than ${maxDepth} levels`);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i], depth, parent: visit, at: i });
      }
    } else {
      for (const [name, member] of Object.entries(v)) {
        const at = { value: member, depth, parent: visit, at: name };
        if (!isWellFormedText(name)) return flaw(at, 'has a name that is not well-formed Unicode');
        stack.push(at);
      }
    }
  }
  return undefined;
}

function flaw(visit: Visit, message: string): JsonFlaw {
  const path: Array<string | number> = [];
  for (let v: Visit | undefined = visit; v?.at !== undefined; v = v.parent) path.unshift(v.at);
  return { path, message };
}

/** `['rules', 0, 'values']` → `rules[0].values`; `root` for the value itself. */
export function fieldPath(path: JsonPath, root: string): string {
  if (path.length === 0) return root;
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`))
    .join('');
}
