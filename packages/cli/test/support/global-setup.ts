/**
 * Once per test run: builds `dist/svc.mjs` as `pnpm build` does, and starts the real console and
 * api as child processes (`node --import tsx apps/…/src/main.ts`) over one temp SQLite folder.
 * Each test file works in a workspace of its own.
 */
import { execFileSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { startProcesses } from '@svc/testkit';
import { ADMIN_TOKEN, repoRoot } from './paths.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    consolePort: number;
    apiPort: number;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync('pnpm', ['run', 'build'], { cwd: `${repoRoot}/packages/cli`, stdio: 'ignore' });
  // The identity stand-ins of @svc/testkit/identity serve plain http on loopback (tests only).
  const live = await startProcesses(ADMIN_TOKEN, { IDENTITY_ALLOW_HTTP: 'true' });
  project.provide('consolePort', live.consolePort);
  project.provide('apiPort', live.apiPort);
  return live.stop;
}
