/**
 * `bench/stream`: how long one console change takes to reach N open streams.
 *
 * Starts the console and the api as separate processes over a temp SQLite DATA_DIR (or
 * DATABASE_URL when set), opens N streams from a separate load-generator process (Go,
 * `loadgen/main.go`, built here with `go build`), makes one console change per round through
 * the management API, and reports per-stream latency (p50/p99/max, from the kernel's receive
 * timestamps, and from the generator's reads), the api's RSS and the load generator's own CPU
 * time. Run it through run.sh, which raises the open-file limit first.
 *
 *   bench/stream/run.sh [--streams 100,1000,10000] [--rounds 100] [--warmup 5] [--warmup-seconds 10]
 *                       [--concurrency 200] [--pin] [--items 1000,10000,100000]
 *                       [--workers 2 --loadgens 2 --no-raw]
 *
 * --items: the project also holds that many items (seeded straight into storage, 60 % configs,
 * 30 % flags, 10 % secrets), each size in turn; the api's cold start (spawn to `/readyz` 200) and
 * RSS are reported per size. --workers: API_WORKERS of the api (RSS is the sum of its
 * processes). --loadgens: that many load-generator processes share the streams (one process
 * holds at most 20,000 sockets); each changes its own config, every stream receives every
 * change, and each generator times its own streams' arrivals of its own changes.
 *
 * Warm-up: at least `--warmup` rounds and `--warmup-seconds` after the streams are open, so the
 * timed rounds see a server past its start-up (JIT, and the first full garbage collections of a
 * fresh process, which landed 2 to 7 s after start and made rounds 5 to 20 ms slower). The
 * warm-up rounds are reported apart, as what a change right after start-up sees.
 *
 * BENCH_TRACE=1 prints each round's first/median/last arrival (both clocks) from the load generator.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { freePort, httpCall } from '@svc/testkit';
import { bulkSeed } from '../lib/bulk-seed.ts';
import { buildApps, waitReady } from '../lib/processes.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    streams: { type: 'string', default: '100,1000,10000' },
    rounds: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '5' },
    'warmup-seconds': { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '200' },
    // Server (api or raw baseline) on CPU 0, load generator on CPU 1; the console floats.
    pin: { type: 'boolean', default: false },
    items: { type: 'string', default: '0' },
    workers: { type: 'string', default: '1' },
    loadgens: { type: 'string', default: '1' },
    'no-raw': { type: 'boolean', default: false },
  },
});

/** How to run node for a process pinned to `cpu` (or not pinned): command and leading args. */
function nodeOn(cpu: number | undefined): [string, string[]] {
  return args.pin && cpu !== undefined
    ? ['taskset', ['-c', String(cpu), process.execPath]]
    : [process.execPath, []];
}
/** What the load generator (`loadgen/main.go`) is told to do. */
interface LoadStart {
  type: 'start';
  apiPort: number;
  consolePort: number;
  adminToken: string;
  /** Path of the stream below the api, e.g. `/bench/v1/stream`. */
  streamPath: string;
  /** Keys used in turn by the streams (one view per key kind). */
  keys: string[];
  /** The management path of the config each round changes. */
  configPath: string;
  streams: number;
  rounds: number;
  warmupRounds: number;
  /** Warm-up lasts at least this long after `go`. */
  warmupMs: number;
  connectConcurrency: number;
  roundTimeoutMs: number;
  /** The loopback address its streams connect from (each generator its own ephemeral ports). */
  sourceAddress?: string;
}

interface RoundResult {
  /** Per stream that got the change: ms from the change request's start to the kernel's receive timestamp. */
  latenciesMs: number[];
  /** The same arrivals as the load generator's reads returned them. */
  readLatenciesMs: number[];
  missing: number;
  /** The management API's own response time. */
  changeRequestMs: number;
}

interface LoadDone {
  type: 'done';
  connectMs: number;
  rounds: RoundResult[];
  /** The warm-up rounds: the server's first seconds. */
  warmup: RoundResult[];
  /** The load generator's CPU time (user + system), in ms. */
  cpuMs: { connect: number; rounds: number; total: number };
  closedEarly: number;
}

const TOKEN = 'bench-admin-token-0123456789abcdef';
const children = new Set<ChildProcess>();

function start(
  name: string,
  entry: string,
  env: Record<string, string>,
  /** Arguments for a process that reports `ready` over IPC (the raw baseline). */
  ipcArgs?: string[],
): ChildProcess {
  // taskset execs node in place: the child's pid is node's.
  const [command, lead] = nodeOn(name === 'console' ? undefined : 0);
  // The apps run from their bundles, as `pnpm start` runs them; the raw baseline through tsx.
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(command, [...lead, ...loader, entry, ...(ipcArgs ?? [])], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', SEED_DEMO: 'false', ...env },
    stdio: ipcArgs ? ['ignore', 'inherit', 'inherit', 'ipc'] : ['ignore', 'inherit', 'inherit'],
  });
  children.add(child);
  child.once('exit', (code, signal) => {
    children.delete(child);
    if (!stopping.has(child)) {
      console.error(`${name} exited unexpectedly (${signal ?? code})`);
      void cleanUp().then(() => process.exit(1));
    }
  });
  return child;
}

const stopping = new Set<ChildProcess>();
async function stop(child: ChildProcess): Promise<void> {
  stopping.add(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

let dataDir: string | undefined;
let loadgenDir: string | undefined;
async function cleanUp(): Promise<void> {
  await Promise.all([...children].map(stop));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (loadgenDir) rmSync(loadgenDir, { recursive: true, force: true });
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc, 10 ms ticks). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident set size now and at its peak, in MB (Linux /proc), of a process and its children. */
function rss(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(/(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(field)) ?? '')?.[1]);
  const own = { now: kb('VmRSS:') / 1024, peak: kb('VmHWM:') / 1024 };
  // An api with API_WORKERS > 1 is a primary and its workers.
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number);
  for (const child of children) {
    const sub = rss(child);
    own.now += sub.now;
    own.peak += sub.peak;
  }
  return own;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Builds the Go load generator once per run (`go build`, standard library only). */
function buildLoadGenerator(): string {
  // Not in the data folder: the apps make its files 0600 (not executable) at start.
  loadgenDir = mkdtempSync(join(tmpdir(), 'svc-bench-loadgen-'));
  const binary = join(loadgenDir, 'loadgen');
  const built = spawnSync('go', ['build', '-o', binary, '.'], {
    cwd: join(root, 'bench/stream/loadgen'),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (built.status !== 0)
    throw new Error('go build of bench/stream/loadgen failed (is Go installed?)');
  return binary;
}

/** One load-generator process: started, told what to do, read line by line. */
function startGenerator(generator: string, options: LoadStart) {
  const [command, lead] = args.pin ? ['taskset', ['-c', '1', generator]] : [generator, []];
  const child = spawn(command, lead, { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  children.add(child);
  stopping.add(child);
  const exited = once(child, 'close');
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const nextMessage = async (type: string) => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`the load generator exited (${child.exitCode ?? child.signalCode})`);
    const message = JSON.parse(value as string) as { type: string };
    if (message.type !== type)
      throw new Error(`load generator: ${type} expected, got ${message.type}`);
    return message;
  };
  child.stdin!.write(`${JSON.stringify(options)}\n`);
  return { child, exited, nextMessage };
}

/** Runs the generators together (each with its streams and its config) and merges their rounds. */
async function runLoad(generator: string, options: LoadStart[], serverPid: number) {
  const gens = options.map((o) => startGenerator(generator, o));
  await Promise.all(gens.map((g) => g.nextMessage('connected')));
  // Flush what the run wrote so far (the generator's build, tsx's cache, the new database):
  // on ext4 a commit's fsync also waits for other files' dirty data, which stalled single
  // commits by 28 to 124 ms (strace) and so whole rounds, none of it the service's own doing.
  spawnSync('sync');
  await new Promise((r) => setTimeout(r, 500));
  const connected = rss(serverPid);
  for (const g of gens) g.child.stdin!.write('{"type":"go"}\n');
  const all = (await Promise.all(gens.map((g) => g.nextMessage('done')))) as LoadDone[];
  for (const g of gens) {
    g.child.stdin!.end();
    await g.exited;
    children.delete(g.child);
  }
  const done: LoadDone = {
    type: 'done',
    connectMs: Math.max(...all.map((d) => d.connectMs)),
    rounds: all.flatMap((d) => d.rounds),
    warmup: all.flatMap((d) => d.warmup),
    cpuMs: {
      connect: all.reduce((t, d) => t + d.cpuMs.connect, 0),
      rounds: all.reduce((t, d) => t + d.cpuMs.rounds, 0) / all.length,
      total: all.reduce((t, d) => t + d.cpuMs.total, 0),
    },
    closedEarly: all.reduce((t, d) => t + d.closedEarly, 0),
  };
  return { done, connected, after: rss(serverPid) };
}

async function main(): Promise<void> {
  const counts = args.streams.split(',').map(Number);
  dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-stream-'));
  const storageEnv: Record<string, string> = { DATA_DIR: dataDir };
  if (process.env.DATABASE_URL) storageEnv.DATABASE_URL = process.env.DATABASE_URL;
  const consolePort = await freePort();
  buildApps();
  start('console', 'apps/console/dist/main.mjs', {
    ...storageEnv,
    CONSOLE_PORT: String(consolePort),
    CONSOLE_ADMIN_TOKEN: TOKEN,
  });
  await waitReady(consolePort);
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await httpCall(consolePort, method, `/api${path}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      body,
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return JSON.parse(res.text || 'null');
  };
  const project = '/workspaces/bench/projects/app';
  await admin('POST', '/workspaces', { slug: 'bench', name: 'Bench' });
  await admin('POST', '/workspaces/bench/projects', { slug: 'app', name: 'App' });
  await admin('PUT', `${project}/configs/bench.value`, { value: 'initial', is_public: true });
  await admin('PUT', `${project}/configs/db.pool`, { value: { max: 10 }, is_public: false });
  await admin('PUT', `${project}/secrets/stripe.api_key`, { value: 'sk_live_bench' });
  // Half the streams follow the secret-key view, half the public-key view.
  const keys = [
    (await admin('POST', `${project}/keys`, { kind: 'secret' })).key,
    (await admin('POST', `${project}/keys`, { kind: 'public' })).key,
  ];

  const generator = buildLoadGenerator();
  const loadgens = Number(args.loadgens);
  for (let g = 1; g < loadgens; g++) {
    await admin('PUT', `${project}/configs/bench.value_${g}`, {
      value: 'initial',
      is_public: true,
    });
  }
  const rows: string[] = [];
  let seeded = 0;
  for (const items of args.items.split(',').map(Number)) {
    if (items > seeded) {
      await bulkSeed(storageEnv, { workspace: 'bench', project: 'app', from: seeded, to: items });
      seeded = items;
    }
    for (const n of counts) {
      /** The same rounds for the api and for the raw baseline; only the ports and path differ. */
      const load = (port: number, changePort: number, configPath: (g: number) => string) =>
        Array.from({ length: loadgens }, (_, g): LoadStart => ({
          type: 'start',
          apiPort: port,
          consolePort: changePort,
          adminToken: TOKEN,
          streamPath: '/bench/v1/stream',
          keys,
          configPath: configPath(g),
          streams: Math.floor(n / loadgens) + (g < n % loadgens ? 1 : 0),
          rounds: Number(args.rounds),
          warmupRounds: Number(args.warmup),
          warmupMs: Number(args['warmup-seconds']) * 1000,
          connectConcurrency: Number(args.concurrency),
          roundTimeoutMs: 10_000,
          ...(g > 0 ? { sourceAddress: `127.0.0.${g + 1}` } : {}),
        }));
      const apiPort = await freePort();
      const spawned = performance.now();
      const api = start('api', 'apps/api/dist/main.mjs', {
        ...storageEnv,
        PORT: String(apiPort),
        API_WORKERS: args.workers,
        // Up to 20,000 open files a process: room for the streams of a worker, and its others.
        STREAM_MAX: '19000',
        STREAM_MAX_PER_CLIENT: '100000',
      });
      await waitReady(apiPort, 10);
      const coldStartMs = performance.now() - spawned;
      // The same in CPU time, which a loaded machine does not stretch (one process: workers' not counted).
      const coldStartCpuMs = cpuMsOf(api.pid!);
      const idle = rss(api.pid!);
      const { done, connected, after } = await runLoad(
        generator,
        load(apiPort, consolePort, (g) => `/api${project}/configs/bench.value${g ? `_${g}` : ''}`),
        api.pid!,
      );
      await stop(api);
      // The baseline in the same run: the same load generator against a raw fan-out server.
      let baseline: Awaited<ReturnType<typeof runLoad>> | undefined;
      let rawIdle = NaN;
      if (!args['no-raw']) {
        const rawPort = await freePort();
        const raw = start('raw', 'bench/stream/raw-fanout.ts', {}, [String(rawPort)]);
        await once(raw, 'message');
        rawIdle = rss(raw.pid!).now;
        baseline = await runLoad(
          generator,
          load(rawPort, rawPort, () => '/change'),
          raw.pid!,
        );
        await stop(raw);
      }
      const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
      const rawAll = sorted(baseline?.done.rounds.flatMap((r) => r.latenciesMs) ?? []);
      const rawRead = sorted(baseline?.done.rounds.flatMap((r) => r.readLatenciesMs) ?? []);
      /** KB of RSS per open stream: (with streams − idle) / streams. */
      const perStream = (idleMb: number, withMb: number) => ((withMb - idleMb) * 1024) / n;
      const all = sorted(done.rounds.flatMap((r) => r.latenciesMs));
      const read = sorted(done.rounds.flatMap((r) => r.readLatenciesMs));
      const missing = done.rounds.reduce((s, r) => s + r.missing, 0);
      const roundP99 = sorted(done.rounds.map((r) => percentile(sorted(r.latenciesMs), 99)));
      const put = sorted(done.rounds.map((r) => r.changeRequestMs));
      const warm = sorted(done.warmup.flatMap((r) => r.latenciesMs));
      const f = (x: number) => x.toFixed(1);
      const cells = [
        items,
        args.workers,
        n,
        f(percentile(all, 50)),
        f(percentile(all, 99)),
        f(all.at(-1) ?? NaN),
        `${f(percentile(roundP99, 50))} (${f(roundP99[0]!)}–${f(roundP99.at(-1)!)})`,
        `${f(percentile(warm, 99))} / ${f(warm.at(-1) ?? NaN)} (${done.warmup.length})`,
        `${f(percentile(read, 50))} / ${f(percentile(read, 99))}`,
        f(percentile(put, 50)),
        missing,
        f(idle.now),
        f(connected.now),
        f(after.peak),
        f(done.connectMs / 1000),
        f(done.cpuMs.connect),
        f(done.cpuMs.rounds / (done.rounds.length + done.warmup.length)),
        `${f(coldStartMs)} / ${f(coldStartCpuMs)}`,
        f(perStream(idle.now, connected.now)),
      ];
      cells.push(
        `${f(percentile(rawAll, 50))} / ${f(percentile(rawAll, 99))}`,
        `${f(percentile(rawRead, 50))} / ${f(percentile(rawRead, 99))}`,
        baseline ? `${f(rawIdle)} / ${f(baseline.connected.now)}` : '',
        baseline ? f(perStream(rawIdle, baseline.connected.now)) : '',
      );
      rows.push(`| ${cells.join(' | ')} |`);
      console.log(rows.at(-1));
      if (done.closedEarly > 0) console.warn(`  ${done.closedEarly} streams closed early`);
    }
  }
  console.log(
    [
      '',
      `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}${args.pin ? '; pinned: server on CPU 0, load generator on CPU 1' : ''}`,
      `streams: ${counts.join(', ')}; rounds: ${args.rounds}, after a warm-up of at least ${args.warmup} rounds and ${args['warmup-seconds']} s; latency = change request start → the change's bytes at the stream's socket (kernel receive timestamp), ms; read: the same, when the load generator's read returned them; raw fan-out: the same load generator against bench/stream/raw-fanout.ts, one process writing each change to every stream as the request arrives`,
      '| items | workers | streams | p50 | p99 | max | p99 of one round: median (min–max) | warm-up p99 / max (rounds) | read p50 / p99 | console PUT p50 | missing | api RSS idle MB | api RSS with streams MB | api RSS peak MB | connect s | load-gen CPU connecting ms | load-gen CPU per round ms | api cold start ms / its CPU ms | api KB per stream | raw fan-out p50 / p99 | raw read p50 / p99 | raw RSS idle / with streams MB | raw KB per stream |',
      '|---:|---:|---:|---:|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---:|',
      ...rows,
    ].join('\n'),
  );
}

process.on('SIGINT', () => void cleanUp().then(() => process.exit(130)));
try {
  await main();
} finally {
  await cleanUp();
}
