/**
 * Three projects: the hook tests in jsdom against React 19 and, with `react` and `react-dom`
 * resolved to React 18 (test/react18, a local package so that its react-dom sees its own
 * react), against React 18; and the Node-side tests (Chromium, the bundle budget).
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { defineConfig } from 'vitest/config';

const react18 = createRequire(createRequire(import.meta.url).resolve('svc-react18-env/package.json'));
const dir = (name: string) => dirname(react18.resolve(`${name}/package.json`));

export default defineConfig({
  test: {
    projects: [
      {
        test: { name: 'react19', environment: 'jsdom', include: ['test/**/*.test.tsx'] },
      },
      {
        resolve: {
          alias: [
            { find: /^react-dom(\/.*)?$/, replacement: `${dir('react-dom')}$1` },
            { find: /^react(\/.*)?$/, replacement: `${dir('react')}$1` },
          ],
        },
        test: { name: 'react18', environment: 'jsdom', include: ['test/**/*.test.tsx'] },
      },
      {
        test: { name: 'node', environment: 'node', include: ['test/**/*.test.ts'] },
      },
    ],
  },
});
