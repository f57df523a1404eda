/**
 * Once per test run: builds `dist/svc.mjs` as `pnpm build` does, and starts the real console and
 * api as child processes (`node --import tsx apps/…/src/main.ts`) over one temp SQLite folder.
 * Each test file works in a workspace of its own.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { freePort, httpCall, tempDir, waitFor } from '@svc/testkit';
import { ADMIN_TOKEN, repoRoot } from './paths.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    consolePort: number;
    apiPort: number;
  }
}

function startApp(app: 'api' | 'console', env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', `apps/${app}/src/main.ts`], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'silent', SEED_DEMO: 'false', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function ready(child: ChildProcess, port: number): Promise<void> {
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`the app exited with ${child.exitCode}`);
    return (await httpCall(port, 'GET', '/readyz').catch(() => undefined))?.status === 200;
  }, 30_000);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync('pnpm', ['run', 'build'], { cwd: `${repoRoot}/packages/cli`, stdio: 'ignore' });
  const dataDir = tempDir('svc-cli-test-');
  const [consolePort, apiPort] = [await freePort(), await freePort()];
  const env = { DATA_DIR: dataDir, HOST: '127.0.0.1', CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN };
  const apps = [
    startApp('console', { ...env, CONSOLE_PORT: String(consolePort) }),
    startApp('api', { ...env, PORT: String(apiPort) }),
  ];
  const stop = async () => {
    for (const child of apps) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await ready(apps[0]!, consolePort);
    await ready(apps[1]!, apiPort);
  } catch (error) {
    await stop();
    throw error;
  }
  project.provide('consolePort', consolePort);
  project.provide('apiPort', apiPort);
  return stop;
}
