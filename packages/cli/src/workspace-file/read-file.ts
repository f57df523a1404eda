/**
 * Reads a workspace file: YAML (1.2 core schema, unique keys, aliases bounded), then the schema.
 * Every problem is reported at once, before any request, as `file:line: path: message`.
 */
import { readFileSync, statSync } from 'node:fs';
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { CliError } from '../cli-error.ts';
import { formatPath, type FilePath } from './file-path.ts';
import { workspaceFile, type WorkspaceFile } from './schema.ts';

/** Far above any real workspace (a config holds at most 256 KiB), far below a memory problem. */
const MAX_FILE_BYTES = 32 * 1024 * 1024;

/** Reads and checks `path` (`-` reads standard input). */
export function readWorkspaceFile(path: string): WorkspaceFile {
  if (path !== '-' && statSync(path, { throwIfNoEntry: false }) === undefined) {
    throw new CliError(`${path}: no such file`);
  }
  const text = readFileSync(path === '-' ? 0 : path);
  if (text.length > MAX_FILE_BYTES) {
    throw new CliError(`${path}: larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB`);
  }
  return parseWorkspaceFile(text.toString('utf8'), path === '-' ? '<stdin>' : path);
}

/** Parses and checks the text of a workspace file; `name` is used in messages. */
export function parseWorkspaceFile(text: string, name: string): WorkspaceFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const at = (offset: number) => `${name}:${lines.linePos(offset).line}`;
  if (doc.errors.length > 0) {
    throw new CliError(
      `${name} is not valid YAML:\n${doc.errors.map((e) => `  ${at(e.pos[0])}: ${e.message.split('\n')[0]}`).join('\n')}`,
    );
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    throw new CliError(`${name}: ${(error as Error).message}`);
  }
  const result = workspaceFile.safeParse(data ?? {}, { reportInput: true });
  const issues = [
    ...protoKeys(data, []),
    ...(result.success ? [] : result.error.issues.flatMap(describeIssue)),
  ];
  if (result.success && issues.length === 0) return result.data;
  const problems = issues.map(({ path, message }) => {
    const offset = locate(doc, path);
    const where = offset === undefined ? name : at(offset);
    return `  ${where}: ${path.length === 0 ? '' : `${formatPath(path)}: `}${message}`;
  });
  throw new CliError(`${name} does not fit the workspace file schema:\n${problems.join('\n')}`);
}

/**
 * Entries named `__proto__`: zod leaves them out of what it parses (assigning one would replace
 * an object's prototype), so they are refused here rather than silently dropped (and pruned).
 */
function protoKeys(value: unknown, path: PropertyKey[]): { path: FilePath; message: string }[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.keys(value).flatMap((key) =>
    key === '__proto__'
      ? [{ path: [...path, key], message: 'a key named __proto__ cannot be managed from a file' }]
      : protoKeys((value as Record<string, unknown>)[key], [
          ...path,
          Array.isArray(value) ? Number(key) : key,
        ]),
  );
}

/** An issue in words (an unknown-field issue becomes one line per field). */
function describeIssue(issue: z.core.$ZodIssue): { path: FilePath; message: string }[] {
  const path = issue.path;
  const missing = 'input' in issue && issue.input === undefined;
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({ path: [...path, key], message: 'unknown field' }));
    case 'invalid_key':
      return [{ path, message: `not a valid key: ${issue.issues[0]?.message ?? 'bad key'}` }];
    case 'invalid_type':
      return [{ path, message: missing ? 'is required' : `must be ${article(issue.expected)}` }];
    case 'invalid_union':
      return [{ path, message: missing ? 'is required' : 'must be a JSON value' }];
    case 'invalid_value':
      return [
        { path, message: `must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}` },
      ];
    case 'too_big':
    case 'too_small':
      return [{ path, message: bound(issue) }];
    default:
      return [{ path, message: issue.message }];
  }
}

function bound(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall): string {
  const big = issue.code === 'too_big';
  const limit = Number(big ? issue.maximum : issue.minimum);
  if (issue.origin === 'number') {
    return `must be ${big ? (issue.inclusive ? '≤' : '<') : issue.inclusive ? '≥' : '>'} ${limit}`;
  }
  const unit = issue.origin === 'string' ? 'characters' : 'entries';
  return `must have ${big ? 'at most' : 'at least'} ${limit} ${unit}`;
}

function article(type: string): string {
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type === 'record' ? 'map' : type}`;
}

/** The offset of the deepest node of `path` that the document has. */
function locate(doc: Document, path: FilePath): number | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = doc.getIn(path.slice(0, depth), true) as { range?: [number, number, number] };
    if (node?.range) return node.range[0];
  }
  return undefined;
}
