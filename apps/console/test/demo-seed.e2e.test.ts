/** The demo workspace (whose keys are written in plaintext) only when SEED_DEMO=true. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, httpCall, tempDir, waitFor } from '@svc/testkit';
const TOKEN = 'console-seed-admin-token-0123456789';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
let child: ChildProcess | undefined;
let dataDir: string | undefined;

afterEach(async () => {
  if (child && child.exitCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the console's own entry point, as production does, and lists its workspaces. */
async function run(env: Record<string, string>) {
  dataDir = tempDir('svc-console-seed-');
  const port = await freePort();
  const { SEED_DEMO: _, ...inherited } = process.env;
  child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      ...inherited,
      DATA_DIR: dataDir,
      CONSOLE_PORT: String(port),
      HOST: '127.0.0.1',
      CONSOLE_ADMIN_TOKEN: TOKEN,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor(
    async () => (await httpCall(port, 'GET', '/readyz').catch(() => undefined))?.status === 200,
    30_000,
  );
  const res = await httpCall(port, 'GET', '/api/workspaces', {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return { slugs: res.json().map((w: any) => w.slug), seedFile: join(dataDir, 'demo-seed.json') };
}

describe('the demo seed', { timeout: 60_000 }, () => {
  it('is not made when SEED_DEMO is not set: no demo workspace, no key file', async () => {
    const { slugs, seedFile } = await run({});
    expect(slugs).toEqual([]);
    expect(existsSync(seedFile)).toBe(false);
  });

  it('is made with SEED_DEMO=true, its key file private to the owner', async () => {
    const { slugs, seedFile } = await run({ SEED_DEMO: 'true' });
    expect(slugs).toEqual(['demo']);
    expect(statSync(seedFile).mode & 0o777).toBe(0o600);
  });
});
