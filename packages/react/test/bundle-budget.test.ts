/**
 * What `@svc/react` and the browser client cost an app: both bundled with esbuild from the
 * package sources (minified, React external, as an app's bundler would), then gzipped (level
 * 9). Issue 18's budget: under 6 KiB. The build itself fails on anything of Node's (a `node:`
 * import does not resolve for browsers).
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';

const LIMIT = 6 * 1024;

async function bundle(entry: string): Promise<{ code: Uint8Array; gzipped: number }> {
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
  return { code, gzipped: gzipSync(code, { level: 9 }).length };
}

describe('bundle size', () => {
  it('@svc/react with the browser client, everything exported, React excluded: under 6 KiB', async () => {
    const both = await bundle(`export * from '../src/index.ts';`);
    const client = await bundle(`export * from '@svc/client/browser';`);
    const kib = (n: number) => `${(n / 1024).toFixed(2)} KiB`;
    console.info(
      `@svc/react + browser client: ${kib(both.code.length)} minified, ` +
        `${kib(both.gzipped)} (${both.gzipped} B) gzipped, ${LIMIT - both.gzipped} B under the ` +
        `budget; the browser client alone: ${kib(client.gzipped)} gzipped`,
    );
    expect(both.gzipped).toBeLessThan(LIMIT);
  });

  it('minified, the errors keep their names (a minifier renames classes)', async () => {
    const { code } = await bundle(`export * from '@svc/client/browser';`);
    const url = `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`;
    const client = (await import(/* @vite-ignore */ url)) as Record<string, unknown>;
    const names = Object.keys(client).filter((name) => name.endsWith('Error'));
    expect(names).toContain('ServiceUnauthorizedError');
    for (const name of names) {
      const type = client[name] as new (message: string, details?: object) => Error;
      const error = name === 'ServiceInitError' ? new type('cause') : new type('m', {});
      expect(error.name).toBe(name);
      expect(error).toBeInstanceOf(client.ServiceError as typeof Error);
    }
  });
});
