/**
 * Writes `schema/workspace.schema.json` from the zod definition (`pnpm --filter @svc/cli schema`);
 * a test fails while the committed file is out of date.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { workspaceJsonSchema } from './schema.ts';

/** Where the package ships the schema. */
export const schemaPath = fileURLToPath(
  new URL('../../schema/workspace.schema.json', import.meta.url),
);

/** The file's text: the schema as indented JSON. */
export function schemaText(): string {
  return `${JSON.stringify(workspaceJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(schemaPath, schemaText());
  console.info(`wrote ${schemaPath}`);
}
