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
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort, httpCall } from '@svc/testkit';
import { bulkSeed } from '../lib/bulk-seed.ts';
import { buildApps, waitReady } from '../lib/processes.ts';
import { cpuMs, rssMb } from '../lib/proc-stats.ts';
import { LoadGenerators, type LoadResult, type LoadStart } from './load-generator.ts';
import { TABLE_HEAD, tableIntro, tableRow } from './report.ts';
import { Supervisor } from './supervisor.ts';

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
const TOKEN = 'bench-admin-token-0123456789abcdef';
const supervisor = new Supervisor(root, nodeOn);

async function main(): Promise<void> {
  const counts = args.streams.split(',').map(Number);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-stream-'));
  supervisor.removeLater(dataDir);
  const storageEnv: Record<string, string> = { DATA_DIR: dataDir };
  if (process.env.DATABASE_URL) storageEnv.DATABASE_URL = process.env.DATABASE_URL;
  const consolePort = await freePort();
  buildApps();
  supervisor.start('console', 'apps/console/dist/main.mjs', {
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

  const generators = LoadGenerators.build(root, supervisor, args.pin);
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
      const api = supervisor.start('api', 'apps/api/dist/main.mjs', {
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
      const coldStartCpuMs = cpuMs(api.pid!);
      const apiIdleMb = rssMb(api.pid!).now;
      const measured = await generators.run(
        load(apiPort, consolePort, (g) => `/api${project}/configs/bench.value${g ? `_${g}` : ''}`),
        api.pid!,
      );
      await supervisor.stop(api);
      // The baseline in the same run: the same load generator against a raw fan-out server.
      let raw: LoadResult | undefined;
      let rawIdleMb = NaN;
      if (!args['no-raw']) {
        const rawPort = await freePort();
        const server = supervisor.start('raw', 'bench/stream/raw-fanout.ts', {}, [String(rawPort)]);
        await once(server, 'message');
        rawIdleMb = rssMb(server.pid!).now;
        raw = await generators.run(
          load(rawPort, rawPort, () => '/change'),
          server.pid!,
        );
        await supervisor.stop(server);
      }
      rows.push(
        tableRow({
          items,
          workers: args.workers,
          streams: n,
          api: measured,
          apiIdleMb,
          coldStartMs,
          coldStartCpuMs,
          raw,
          rawIdleMb,
        }),
      );
      console.log(rows.at(-1));
      const { closedEarly } = measured.done;
      if (closedEarly > 0) console.warn(`  ${closedEarly} streams closed early`);
    }
  }
  console.log(
    [
      tableIntro({
        streams: counts,
        rounds: args.rounds,
        warmup: args.warmup,
        warmupSeconds: args['warmup-seconds'],
        pin: args.pin,
      }),
      ...TABLE_HEAD,
      ...rows,
    ].join('\n'),
  );
}

process.on('SIGINT', () => void supervisor.cleanUp().then(() => process.exit(130)));
try {
  await main();
} finally {
  await supervisor.cleanUp();
}
