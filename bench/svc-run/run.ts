/**
 * bench/svc-run: what `svc run` costs on top of its sync, and how fast `svc run --watch` restarts
 * its command after a console change. The real apps as processes (bench/lib/processes.ts) and
 * the built `packages/cli/dist/svc.mjs` on plain node, as `pnpm svc` runs it.
 *
 *   pnpm --filter @svc/bench bench:svc-run [--runs 50] [--rounds 30]
 *
 * 1. start to exit, `--runs` times each, interleaved so the three share the machine's noise:
 *    - floor: `node -e 0` (starting node at all);
 *    - baseline: `node -e <sync>`: a plain node process that syncs the same key's snapshot once
 *      (fetch, JSON) and exits: what any process that wants its values pays;
 *    - `svc run -- true`: sync, variables, file secrets written, `true` spawned and awaited,
 *      files removed. Its overhead is svc minus the baseline of the same round.
 *    Each is timed by `rusage.py` (fork, exec, wait4): the wall time, and the CPU time the
 *    process and its children used, which does not grow while other processes hold the cores.
 * 2. `svc run --watch -- sh -c 'echo "start $BENCH_VALUE"; exec sleep 600'`: per round, a
 *    console PUT of `bench.value`, timed from just before the request to the restarted command's
 *    line on svc's standard output; beside it, in the same round, the change's arrival on a plain
 *    `/v1/stream` read by this process (the floor: what any client waits for).
 * Prints a markdown table and writes bench/results/svc-run.json.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startApps, type Apps } from '../lib/processes.ts';
import { numberArg } from '../lib/bench-run.ts';

const RUNS = numberArg('--runs', 50);
const ROUNDS = numberArg('--rounds', 30);
const WARMUP = 5;
const svcBin = join(repoRoot, 'packages/cli/dist/svc.mjs');
const P = '/workspaces/bench/projects/app';

const SYNC = `fetch(process.env.SERVICE_BASE_URL + '/v1/sync', { headers: { 'x-service-api-key': process.env.SERVICE_API_KEY } })
  .then((r) => r.json()).then((s) => { if (typeof s.revision !== 'number') process.exit(1); });`;

/** A snapshot like a real service's: configs of several shapes, text and file secrets. */
async function seed(apps: Apps): Promise<string> {
  const put = async (path: string, body: unknown) => {
    const res = await apps.admin('PUT', `${P}${path}`, body);
    if (res.status >= 300) throw new Error(`PUT ${path}: ${res.status} ${res.text}`);
  };
  await apps.admin('POST', '/workspaces', { slug: 'bench', name: 'Bench' });
  await apps.admin('POST', '/workspaces/bench/projects', { slug: 'app', name: 'App' });
  for (let i = 0; i < 40; i++) {
    await put(`/configs/service.setting_${i}`, {
      value: i % 2 === 0 ? `value-${i}` : { limit: i * 10, tags: ['a', 'b'] },
    });
  }
  for (let i = 0; i < 10; i++) await put(`/flags/feature.flag_${i}`, { is_active: i % 2 === 0 });
  for (let i = 0; i < 10; i++)
    await put(`/secrets/vendor.key_${i}`, { value: `sk_${'x'.repeat(32)}` });
  await put('/secrets/tls.cert', { value: 'PEM '.repeat(400), type: 'file', file_name: 'tls.pem' });
  await put('/configs/bench.value', { value: 'v-start' });
  const key = (await apps.admin('POST', `${P}/keys`, { kind: 'secret' })).json().key as string;
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${apps.apiPort}/bench/v1/sync`, {
      headers: { 'x-service-api-key': key },
    });
    const body = (await res.json()) as { secrets?: Record<string, unknown> };
    if (res.status === 200 && body.secrets?.['tls.cert']) return key;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One process's wall time from start to exit and the CPU time it and its children used, in ms. */
function timed(args: string[], env: NodeJS.ProcessEnv): { wall: number; cpu: number } {
  const rusage = join(repoRoot, 'bench/svc-run/rusage.py');
  const result = spawnSync('python3', [rusage, process.execPath, ...args], {
    env,
    encoding: 'utf8',
  });
  const answer = JSON.parse(result.stdout) as { status: number; wall_ms: number; cpu_ms: number };
  if (answer.status !== 0) throw new Error(`${args.join(' ')}: ${answer.status} ${result.stderr}`);
  return { wall: answer.wall_ms, cpu: answer.cpu_ms };
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const round = (n: number) => Math.round(n * 10) / 10;
  return { p50: round(at(0.5)), p99: round(at(0.99)), max: round(sorted.at(-1)!) };
}

function startToExit(env: NodeJS.ProcessEnv) {
  const cases = {
    floor: ['-e', '0'],
    baseline: ['-e', SYNC],
    svc: [svcBin, 'run', '--', 'true'],
  };
  const wall = { floor: [] as number[], baseline: [] as number[], svc: [] as number[] };
  const cpu = { floor: [] as number[], baseline: [] as number[], svc: [] as number[] };
  const overhead = { wall: [] as number[], cpu: [] as number[] };
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const round = {
      floor: timed(cases.floor, env),
      baseline: timed(cases.baseline, env),
      svc: timed(cases.svc, env),
    };
    if (i < WARMUP) continue;
    for (const name of ['floor', 'baseline', 'svc'] as const) {
      wall[name].push(round[name].wall);
      cpu[name].push(round[name].cpu);
    }
    overhead.wall.push(round.svc.wall - round.baseline.wall);
    overhead.cpu.push(round.svc.cpu - round.baseline.cpu);
  }
  const table = (samples: typeof wall) => ({
    floor: stats(samples.floor),
    baseline: stats(samples.baseline),
    svc: stats(samples.svc),
  });
  return {
    wall: { ...table(wall), overhead: stats(overhead.wall) },
    cpu: { ...table(cpu), overhead: stats(overhead.cpu) },
  };
}

/** Resolves when `read()` includes `text`, polling every millisecond. */
async function seen(read: () => string, text: string, timeoutMs = 10_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (!read().includes(text)) {
    if (performance.now() > deadline) throw new Error(`never saw ${text}`);
    await new Promise((r) => setTimeout(r, 1));
  }
  return performance.now();
}

async function watchRestarts(apps: Apps, env: NodeJS.ProcessEnv) {
  const script = 'echo "start $BENCH_VALUE"; exec sleep 600';
  const svc = spawn(process.execPath, [svcBin, 'run', '--watch', '--', 'sh', '-c', script], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  svc.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const streamAbort = new AbortController();
  const stream = await fetch(`${env.SERVICE_BASE_URL}/v1/stream`, {
    headers: { 'x-service-api-key': env.SERVICE_API_KEY!, accept: 'text/event-stream' },
    signal: streamAbort.signal,
  });
  let events = '';
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream.body!) events += decoder.decode(chunk, { stream: true });
  })().catch(() => undefined);
  await seen(() => out, 'start v-start');
  const toStream: number[] = [];
  const toRestart: number[] = [];
  const afterAnswer: number[] = [];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const value = `v-${round}`;
    const started = performance.now();
    const res = await apps.admin('PUT', `${P}/configs/bench.value`, { value });
    const answered = performance.now();
    if (res.status !== 200) throw new Error(`PUT: ${res.status} ${res.text}`);
    const [streamAt, restartAt] = await Promise.all([
      seen(() => events, `"value":"${value}"`),
      seen(() => out, `start ${value}\n`),
    ]);
    if (round >= WARMUP) {
      toStream.push(streamAt - started);
      toRestart.push(restartAt - started);
      afterAnswer.push(restartAt - answered);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  svc.kill('SIGTERM');
  await new Promise((r) => svc.once('exit', r));
  streamAbort.abort();
  return {
    stream: stats(toStream),
    restart: stats(toRestart),
    restartAfterAnswer: stats(afterAnswer),
    restartBeyondStream: stats(toRestart.map((t, i) => t - toStream[i]!)),
  };
}

// Every run syncs: far more than the default quarantine allows a key in a minute.
const apps = await startApps({ SYNC_QUARANTINE_MAX: '1000000' });
try {
  execFileSync('pnpm', ['--filter', '@svc/cli', 'build'], { cwd: repoRoot, stdio: 'ignore' });
  const key = await seed(apps);
  const env = {
    PATH: process.env.PATH,
    SERVICE_BASE_URL: `http://127.0.0.1:${apps.apiPort}/bench`,
    SERVICE_API_KEY: key,
  };
  const loadBefore = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const run = startToExit(env);
  // startToExit blocks the event loop (spawnSync) for longer than the api's keep-alive: let
  // the loop see the server's FIN on seed()'s pooled connection before the next fetch, which
  // would otherwise be sent on it and fail with "other side closed".
  await new Promise((r) => setTimeout(r, 100));
  const watch = await watchRestarts(apps, env);
  const ms = (s: { p50: number; p99: number; max: number }) => `${s.p50} | ${s.p99} | ${s.max}`;
  const rows = (t: typeof run.wall) => `| floor: node -e 0 | ${ms(t.floor)} |
| baseline: node -e <sync> | ${ms(t.baseline)} |
| svc run -- true | ${ms(t.svc)} |
| svc overhead (svc - baseline, same round) | ${ms(t.overhead)} |`;
  console.info(`
node ${process.version}, ${RUNS} runs (after ${WARMUP} warm-up runs each), ${ROUNDS} watch rounds;
load average before: ${loadBefore}, after: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}

| start to exit, wall (ms) | p50 | p99 | max |
|---|---|---|---|
${rows(run.wall)}

| CPU time, user + system (ms) | p50 | p99 | max |
|---|---|---|---|
${rows(run.cpu)}

| svc run --watch: console PUT to ... (ms) | p50 | p99 | max |
|---|---|---|---|
| the change on a plain /v1/stream | ${ms(watch.stream)} |
| the restarted command's first line | ${ms(watch.restart)} |
| ... counted from the PUT's answer | ${ms(watch.restartAfterAnswer)} |
| restart beyond the stream (same round) | ${ms(watch.restartBeyondStream)} |
`);
  writeFileSync(
    join(repoRoot, 'bench/results/svc-run.json'),
    `${JSON.stringify({ node: process.version, loadBefore, runs: RUNS, rounds: ROUNDS, run, watch }, null, 2)}\n`,
  );
} finally {
  await apps.stop();
}
