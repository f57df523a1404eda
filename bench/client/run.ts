/**
 * bench/client: the TypeScript client against the real apps (separate processes, loopback).
 *   node --expose-gc --import tsx bench/client/run.ts [--items 10000] [--creates 50] [--python]
 *
 * 1. reads: getFlag / getConfig operations per second from the cache, beside a plain Map.get on
 *    the same keys in the same run (the floor any cache lookup pays), median of 5 interleaved
 *    rounds;
 * 2. create(): time to ready (initial sync, stream off) on loopback, for a small snapshot
 *    (100 configs, 50 flags, 20 secrets) and for the large one;
 * 3. memory: heap growth of this process (after a full GC) for one client holding the large snapshot
 *    (default 10,000 items: 6,000 configs, 3,000 flags, 1,000 secrets), and what stays after
 *    close().
 * Prints a markdown table and writes bench/client/results.json. With --python, the Python client
 * (bench/client/python.ts) is measured the same way right after, on the same apps and data.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ServiceClient, silentLogger } from '../../packages/client/src/index.ts';
import { repoRoot, startApps, type Apps } from '../lib/processes.ts';
import { printPython, runPythonBench } from './python.ts';
import { numberArg } from '../lib/bench-run.ts';

const ITEMS = numberArg('--items', 10_000);
const CREATES = numberArg('--creates', 50);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const configValue = (i: number) => ({
  enabled: i % 2 === 0,
  limit: i * 10,
  name: `setting number ${i}`,
  tags: ['a', 'b'],
});

/** PUTs with a few in flight at once (the console commits one at a time anyway). */
async function putAll(apps: Apps, calls: [string, unknown][]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const [path, body] = calls[next++]!;
      const res = await apps.admin('PUT', path, body);
      if (res.status >= 300) throw new Error(`PUT ${path}: ${res.status} ${res.text}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

async function project(
  apps: Apps,
  slug: string,
  items: { configs: number; flags: number; secrets: number },
) {
  await apps.admin('POST', '/workspaces', { slug, name: slug });
  await apps.admin('POST', `/workspaces/${slug}/projects`, { slug: 'app', name: 'App' });
  const p = `/workspaces/${slug}/projects/app`;
  const calls: [string, unknown][] = [];
  for (let i = 0; i < items.configs; i++) {
    calls.push([
      `${p}/configs/service.setting_${i}`,
      { value: configValue(i), is_public: i % 3 === 0 },
    ]);
  }
  for (let i = 0; i < items.flags; i++)
    calls.push([`${p}/flags/feature.flag_${i}`, { is_active: i % 2 === 0 }]);
  for (let i = 0; i < items.secrets; i++) {
    calls.push([`${p}/secrets/vendor.api_key_${i}`, { value: `sk_live_${'x'.repeat(32)}_${i}` }]);
  }
  await putAll(apps, calls);
  const key = (await apps.admin('POST', `${p}/keys`, { kind: 'secret' })).json().key as string;
  const total = items.configs + items.flags + items.secrets;
  // Wait until the api serves the whole snapshot to the new key.
  for (let i = 0; ; i++) {
    const res = await fetch(`http://127.0.0.1:${apps.apiPort}/${slug}/v1/sync`, {
      headers: { 'x-service-api-key': key },
    });
    const body =
      res.status === 200
        ? ((await res.json()) as Record<string, Record<string, unknown>>)
        : undefined;
    if (res.status !== 200) await res.arrayBuffer();
    const n = body
      ? ['configs', 'flags', 'secrets'].reduce((s, k) => s + Object.keys(body[k] ?? {}).length, 0)
      : 0;
    if (n === total) return { key, bytes: JSON.stringify(body).length };
    if (i > 2000) throw new Error(`the api never served ${total} items to the new key`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const create = (apps: Apps, slug: string, apiKey: string) =>
  ServiceClient.create({
    baseUrl: `http://127.0.0.1:${apps.apiPort}/${slug}`,
    apiKey,
    stream: false,
    logger: silentLogger,
  });

function opsPerSecond(fn: (i: number) => unknown, iterations: number): number {
  let sink = 0;
  for (let i = 0; i < iterations / 10; i++) if (fn(i)) sink++; // warm-up (JIT)
  const started = performance.now();
  for (let i = 0; i < iterations; i++) if (fn(i)) sink++;
  const seconds = (performance.now() - started) / 1000;
  if (sink < 0) console.log(sink);
  return iterations / seconds;
}

/** Heap growth (after full GCs) with one open client, and what is left once it is closed and dropped. */
async function measureMemory(open: () => Promise<ServiceClient>, snapshotBytes: number) {
  const heap = () => {
    gc!();
    gc!();
    return process.memoryUsage().heapUsed;
  };
  const before = heap();
  let client: ServiceClient | undefined = await open();
  const whileOpen = heap() - before;
  await client.close();
  client = undefined;
  await new Promise((r) => setTimeout(r, 50));
  const after = heap() - before;
  return {
    items: ITEMS,
    snapshotBytes,
    heapMB: whileOpen / 2 ** 20,
    /** Heap still held after close() and a full GC (about 0 when nothing leaks). */
    retainedAfterCloseMB: after / 2 ** 20,
  };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

const apps = await startApps({ SYNC_QUARANTINE_MAX: '100000' });
try {
  const started = performance.now();
  const small = await project(apps, 'small', { configs: 100, flags: 50, secrets: 20 });
  const large = await project(apps, 'large', {
    configs: Math.round(ITEMS * 0.6),
    flags: Math.round(ITEMS * 0.3),
    secrets: ITEMS - Math.round(ITEMS * 0.6) - Math.round(ITEMS * 0.3),
  });
  console.error(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // Memory first, on a quiet heap: one client with the large snapshot, then closed and dropped.
  await (await create(apps, 'small', small.key)).close(); // warms fetch and the module graph
  const memory = await measureMemory(() => create(apps, 'large', large.key), large.bytes);
  const client = await create(apps, 'large', large.key);

  // Reads: keys prepared up front, cycling through hits and misses.
  const n = 20_000_000;
  const flagKeys = Array.from(
    { length: 1024 },
    (_, i) => `feature.flag_${i % Math.round(ITEMS * 0.3)}`,
  );
  const missKeys = Array.from({ length: 1024 }, (_, i) => `feature.missing_${i}`);
  const configKeys = Array.from(
    { length: 1024 },
    (_, i) => `service.setting_${i % Math.round(ITEMS * 0.6)}`,
  );
  const map = new Map(Object.entries(client.getAllFlags()));
  const cases: Record<string, (i: number) => unknown> = {
    'Map.get (baseline)': (i) => map.get(flagKeys[i & 1023]!),
    'getFlag (hit)': (i) => client.getFlag(flagKeys[i & 1023]!),
    'getFlag (miss, default)': (i) => client.getFlag(missKeys[i & 1023]!, true),
    getConfig: (i) => client.getConfig(configKeys[i & 1023]!),
  };
  // Rounds interleave the cases, so a busy moment of the machine hits all of them; the median
  // round counts.
  const rounds: Record<string, number[]> = Object.fromEntries(
    Object.keys(cases).map((k) => [k, []]),
  );
  for (let round = 0; round < 5; round++) {
    for (const [name, fn] of Object.entries(cases)) rounds[name]!.push(opsPerSecond(fn, n / 5));
  }
  const reads = Object.fromEntries(
    Object.entries(rounds).map(([name, list]) => [
      name,
      quantile(
        [...list].sort((a, b) => a - b),
        0.5,
      ),
    ]),
  );
  await client.close();
  // The reads above kept the event loop busy for many seconds: let fetch notice the pooled
  // connections the api closed meanwhile (keep-alive timeout), or the next request reuses one.
  await new Promise((r) => setTimeout(r, 200));

  // create() to ready.
  const createTimes: Record<string, { p50: number; p99: number; max: number }> = {};
  for (const [name, slug, key] of [
    ['small (170 items)', 'small', small.key],
    [`large (${ITEMS} items)`, 'large', large.key],
  ] as const) {
    const times: number[] = [];
    for (let i = 0; i < CREATES + 5; i++) {
      const t = performance.now();
      const c = await create(apps, slug, key);
      const elapsed = performance.now() - t;
      await c.close();
      if (i >= 5) times.push(elapsed); // the first few warm the JIT and the connection pool
    }
    times.sort((a, b) => a - b);
    createTimes[name] = {
      p50: quantile(times, 0.5),
      p99: quantile(times, 0.99),
      max: times.at(-1)!,
    };
  }

  // The Python client, on the same apps and projects (see python.ts).
  const python = process.argv.includes('--python')
    ? runPythonBench(
        apps,
        { small: ['small', small.key], large: ['large', large.key] },
        { items: ITEMS, creates: CREATES },
      )
    : undefined;

  const results = {
    date: new Date().toISOString(),
    node: process.version,
    reads,
    createTimes,
    memory,
    ...(python && { python }),
  };
  writeFileSync(
    join(repoRoot, 'bench/client/results.json'),
    `${JSON.stringify(results, null, 2)}\n`,
  );

  console.log('| read | ops/s |\n| --- | ---: |');
  for (const [name, ops] of Object.entries(reads))
    console.log(`| ${name} | ${(ops / 1e6).toFixed(1)} M |`);
  console.log('\n| create() to ready | p50 ms | p99 ms | max ms |\n| --- | ---: | ---: | ---: |');
  for (const [name, t] of Object.entries(createTimes)) {
    console.log(`| ${name} | ${t.p50.toFixed(1)} | ${t.p99.toFixed(1)} | ${t.max.toFixed(1)} |`);
  }
  console.log(
    `\nmemory with ${ITEMS} items (snapshot ${(memory.snapshotBytes / 1024).toFixed(0)} KB of JSON): ` +
      `heap +${memory.heapMB.toFixed(1)} MB while open, ${memory.retainedAfterCloseMB.toFixed(1)} MB after close()`,
  );
  if (python) printPython(python);
} finally {
  await apps.stop();
}
