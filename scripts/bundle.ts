/**
 * Builds a program for production, run from its package's folder (an app's `pnpm build`): the
 * entry (`src/main.ts`) and every workspace package it imports, bundled by esbuild into one ES
 * module (`dist/main.mjs`) that plain `node` runs, with no TypeScript compiler loaded at run
 * time. Native and optional modules stay outside and load from node_modules. `--copy <dir>` puts
 * a folder the program serves as it is (the console's page) beside the bundle, where the bundled
 * code looks for it.
 *
 * The root `pnpm build` also bundles `pnpm start`'s launcher (`scripts/start.ts`) into the root's
 * `dist/start.mjs`. It needs two small functions of @svc/console and the settings of
 * @svc/runtime; both packages declare `"sideEffects": false`, so the bundle leaves out the rest
 * (the stores, and better-sqlite3, which the root cannot load).
 *
 * `--shebang` makes the bundle an executable script (`#!/usr/bin/env node`, mode 0755): a bin.
 * `--splitting` puts what the entry imports dynamically (`await import(…)`) into chunk files
 * beside it (`dist/chunks/`), loaded only when that code runs: a command-line tool's start.
 *
 *   tsx ../../scripts/bundle.ts [--copy src/page] [--entry src/main.ts] [--outfile dist/main.mjs]
 *     [--shebang] [--splitting]
 */
import { chmodSync, cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const { values } = parseArgs({
  options: {
    entry: { type: 'string', default: 'src/main.ts' },
    outfile: { type: 'string', default: 'dist/main.mjs' },
    copy: { type: 'string', multiple: true },
    shebang: { type: 'boolean', default: false },
    splitting: { type: 'boolean', default: false },
  },
});
const outDir = dirname(values.outfile);
// The folder is emptied first: it must be the bundle's own.
if (['.', '..', '/', ''].includes(outDir)) {
  throw new Error(`--outfile ${values.outfile}: put the bundle in a folder of its own (dist/…)`);
}

rmSync(outDir, { recursive: true, force: true });
const outExtension = extname(values.outfile);
await build({
  ...(values.splitting
    ? {
        entryPoints: { [basename(values.outfile, outExtension)]: values.entry },
        outdir: outDir,
        splitting: true,
        chunkNames: 'chunks/[name]-[hash]',
        outExtension: { '.js': outExtension },
      }
    : { entryPoints: [values.entry], outfile: values.outfile }),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // better-sqlite3 is native; pg-native is pg's optional driver, never installed here.
  external: ['better-sqlite3', 'pg-native'],
  // The CommonJS dependencies inside the bundle call require(): an ES module has none.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
for (const dir of values.copy ?? []) cpSync(dir, join(outDir, basename(dir)), { recursive: true });
if (values.shebang) {
  writeFileSync(values.outfile, `#!/usr/bin/env node\n${readFileSync(values.outfile, 'utf8')}`);
  chmodSync(values.outfile, 0o755);
}
