/**
 * Where the package's JSON Schema of the workspace file is, and how an exported file refers to
 * it: by a path relative to the file (or the current folder for standard output), so the
 * reference works on every machine that installed the package at the same place in the repo.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from '../cli-error.ts';

/** The shipped schema, `schema/` of the package: some folders up from this module's file
 * (`src/workspace-file/` in the sources, `dist/` or `dist/chunks/` in the bundle). */
export function shippedSchemaPath(): string {
  for (const candidate of ['../schema/', '../../schema/']) {
    const path = fileURLToPath(new URL(`${candidate}workspace.schema.json`, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new CliError('the package has no schema/workspace.schema.json: reinstall it');
}

/**
 * The `$schema` reference for a file written to `output` (undefined: standard output): relative
 * to the file's folder, or absolute when the two share no folder but the root.
 */
export function schemaReference(output: string | undefined): string {
  const from = output === undefined ? process.cwd() : dirname(resolve(output));
  const schema = shippedSchemaPath();
  const path = relative(from, schema);
  const shared = from.split(sep)[1] === schema.split(sep)[1];
  if (!shared || isAbsolute(path)) return schema;
  const posix = path.split(sep).join('/');
  return posix.startsWith('.') ? posix : `./${posix}`;
}
