/**
 * Starts the real apps as separate processes (as in production) for benchmarks, and runs wrk.
 */
import { spawn, execFile, execFileSync, fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, httpCall, tempDir } from '@svc/testkit';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const ADMIN_TOKEN = 'bench-admin-token-0123456789';

export interface Apps {
  apiPort: number;
  consolePort: number;
  dataDir: string;
  api: ChildProcess;
  console: ChildProcess;
  admin(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: () => any; text: string }>;
  stop(): Promise<void>;
}

/** Builds the api and the console as `pnpm start` runs them: `dist/main.mjs` in each app. */
export function buildApps(): void {
  execFileSync('pnpm', ['--filter', '@svc/api', '--filter', '@svc/console', 'build'], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** A built app (`buildApps`) on plain node, as in production. */
export function spawnApp(
  app: 'api' | 'console',
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, `apps/${app}/dist/main.mjs`], {
    cwd: repoRoot,
    env,
    // BENCH_LOG_LEVEL=info (say) shows the apps' logs.
    stdio: ['ignore', process.env.BENCH_LOG_LEVEL ? 'inherit' : 'ignore', 'inherit'],
  });
}

/** Polls `/readyz` every `intervalMs` until it answers 200 (60 s at most). */
export async function waitReady(port: number, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await httpCall(port, 'GET', '/readyz')).status === 200) return;
    } catch {
      // not yet listening
    }
    if (Date.now() > deadline) throw new Error(`port ${port} never became ready`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Builds both apps, then starts the console and the api over one data folder (or DATABASE_URL when set). */
export async function startApps(
  extraEnv: Record<string, string> = {},
  options: { apiNodeArgs?: string[] } = {},
): Promise<Apps> {
  const dataDir = tempDir('svc-bench-');
  const apiPort = 18080 + Math.floor(Math.random() * 1000);
  const consolePort = apiPort + 1000;
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(apiPort),
    CONSOLE_PORT: String(consolePort),
    HOST: '127.0.0.1',
    CONSOLE_ADMIN_TOKEN: ADMIN_TOKEN,
    SEED_DEMO: 'false',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    ...extraEnv,
  };
  buildApps();
  const consoleProcess = spawnApp('console', env);
  await waitReady(consolePort);
  const api = spawnApp('api', env, options.apiNodeArgs);
  await waitReady(apiPort);
  return {
    apiPort,
    consolePort,
    dataDir,
    api,
    console: consoleProcess,
    admin: (method, path, body) =>
      httpCall(consolePort, method, `/api${path}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        body,
      }),
    async stop() {
      for (const p of [api, consoleProcess]) p.kill('SIGTERM');
      await Promise.all(
        [api, consoleProcess].map((p) =>
          p.exitCode === null ? new Promise((r) => p.on('exit', r)) : null,
        ),
      );
    },
  };
}

export interface WrkResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx3xx: number;
}

/** wrk (Debian package) with one thread: the other core runs the server. */
export interface WrkOptions {
  connections?: number;
  /** Run wrk on this CPU only (taskset), away from the server it measures. */
  cpu?: number;
  seconds?: number;
  method?: string;
  body?: string;
}

export function wrk(
  url: string,
  headers: Record<string, string>,
  options: WrkOptions = {},
): WrkResult {
  const args = wrkArgs(url, headers, options);
  const [command, lead] =
    options.cpu === undefined ? ['wrk', []] : ['taskset', ['-c', String(options.cpu), 'wrk']];
  return parseWrk(execFileSync(command, [...lead, ...args], { encoding: 'utf8' }));
}

/** The same as `wrk`, without blocking (to run two loads at once). */
export function wrkAsync(
  url: string,
  headers: Record<string, string>,
  options: WrkOptions = {},
): Promise<WrkResult> {
  return new Promise((resolve, reject) => {
    execFile('wrk', wrkArgs(url, headers, options), { encoding: 'utf8' }, (error, out) =>
      error ? reject(error) : resolve(parseWrk(out)),
    );
  });
}

function wrkArgs(url: string, headers: Record<string, string>, options: WrkOptions): string[] {
  const args = [
    '-t1',
    `-c${options.connections ?? 50}`,
    `-d${options.seconds ?? 10}s`,
    '--latency',
  ];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  if (options.method || options.body !== undefined) {
    // wrk sends bodies through a Lua script.
    const script = join(
      tmpdir(),
      `svc-wrk-${process.pid}-${Math.random().toString(36).slice(2)}.lua`,
    );
    // JSON unless the caller names its own Content-Type (an -H header the script must not override).
    const typed = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
    writeFileSync(
      script,
      `wrk.method = ${JSON.stringify(options.method ?? 'POST')}\nwrk.body = ${JSON.stringify(options.body ?? '')}\n${typed ? '' : 'wrk.headers["Content-Type"] = "application/json"\n'}`,
    );
    args.push('-s', script);
  }
  return [...args, url];
}

function parseWrk(out: string): WrkResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const p50 = latency(/\s50%\s+([\d.]+)(us|ms|s)/.exec(out));
  const p99 = latency(/\s99%\s+([\d.]+)(us|ms|s)/.exec(out));
  const non = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { requestsPerSecond: rps, latencyP50Ms: p50, latencyP99Ms: p99, non2xx3xx: non };
}

function latency(match: RegExpExecArray | null): number {
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

export function requireWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (error) {
    // wrk --version exits 1 but prints; only a missing binary throws ENOENT.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('wrk is not installed: apt-get install -y wrk', { cause: error });
    }
  }
}

/**
 * The raw node:http baseline (raw-server.ts) in its own process, serving `body` with `etag`
 * at any path (304 on a matching `If-None-Match`, for GET and, once the body is read, POST).
 */
export async function startRawServer(
  body: string | Buffer,
  etag: string,
): Promise<{ port: number; process: ChildProcess }> {
  const port = await freePort();
  const file = join(tempDir('svc-raw-'), 'body');
  writeFileSync(file, body);
  const child = fork(join(repoRoot, 'bench/lib/raw-server.ts'), [String(port), file, etag], {
    execArgv: ['--import', 'tsx'],
    stdio: 'ignore',
  });
  await once(child, 'message');
  return { port, process: child };
}
