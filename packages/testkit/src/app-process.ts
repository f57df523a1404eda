/**
 * An app (api or console) as a process of its own, from source (`node --import tsx
 * apps/<app>/src/main.ts`), as the fault tests need: kill it, start it again on the same port and
 * data, and read what it printed (its logs, and a crash's stack) afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, httpCall, tempDir, waitFor } from './index.ts';

// Path arithmetic rather than `new URL(…)`: under jsdom, URL is jsdom's.
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** What is kept of a process's output: its last bytes, where a crash's stack is. */
const OUTPUT_LIMIT = 256 * 1024;

export interface AppProcess {
  readonly app: 'api' | 'console';
  readonly port: number;
  readonly dataDir: string;
  /** Running: not exited, not killed. */
  readonly alive: boolean;
  /** How the last run ended (`code`/`signal`), undefined while it runs. */
  readonly exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /**
   * What the process printed (stdout and stderr, the last 256 KiB), across restarts. Its stderr
   * (a crash's stack, say) also goes to this process's.
   */
  output(): string;
  /** Sends `signal` and waits for the exit (at once if it is not running). */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and data folder; resolves once `/readyz` answers 200. */
  start(): Promise<void>;
  /** Kills it (SIGKILL) and removes its data folder (unless it was given one). */
  remove(): Promise<void>;
}

/**
 * Starts `app` on a free loopback port with `env` on top of this process's environment, in a
 * data folder of its own unless `dataDir` names one (an api and a console on one SQLite file
 * share it); resolves once `/readyz` answers 200 (30 s at most).
 */
export async function startAppProcess(
  app: 'api' | 'console',
  env: Record<string, string>,
  options: { dataDir?: string } = {},
): Promise<AppProcess> {
  const port = await freePort();
  const dataDir = options.dataDir ?? tempDir(`svc-${app}-`);
  let child: ChildProcess | undefined;
  let output = '';
  let exit: AppProcess['exit'];
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
  };
  const handle: AppProcess = {
    app,
    port,
    dataDir,
    get alive() {
      return child !== undefined && exit === undefined;
    },
    get exit() {
      return exit;
    },
    output: () => output,
    async kill(signal = 'SIGTERM') {
      if (!child || exit) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      await exited;
    },
    async start() {
      if (handle.alive) throw new Error(`${app} is running`);
      exit = undefined;
      const started = spawn(process.execPath, ['--import', 'tsx', `apps/${app}/src/main.ts`], {
        cwd: repoRoot,
        env: {
          ...process.env,
          LOG_LEVEL: 'silent',
          SEED_DEMO: 'false',
          ...env,
          DATA_DIR: dataDir,
          HOST: '127.0.0.1',
          [app === 'api' ? 'PORT' : 'CONSOLE_PORT']: String(port),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = started;
      started.stdout.on('data', collect);
      started.stderr.on('data', (chunk: Buffer) => {
        collect(chunk);
        process.stderr.write(chunk);
      });
      started.on('exit', (code, signal) => {
        if (child === started) exit = { code, signal };
      });
      await waitFor(async () => {
        if (exit) throw new Error(`${app} exited (${exit.code ?? exit.signal}):\n${output}`);
        return (await httpCall(port, 'GET', '/readyz').catch(() => undefined))?.status === 200;
      }, 30_000);
    },
    async remove() {
      await handle.kill('SIGKILL');
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await handle.start();
  } catch (error) {
    await handle.remove();
    throw error;
  }
  return handle;
}
