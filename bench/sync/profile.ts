/**
 * Where a sync request's time goes: the api under `node --cpu-prof` while wrk (-t1 -c50) asks
 * for the 12.7 kB snapshot (200) and then with its ETag (304), then each function's share of
 * the samples, grouped by where it lives (our code, node's HTTP, net and streams, native/GC).
 *   pnpm --filter @svc/bench exec tsx sync/profile.ts [-- --seconds 10]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@svc/testkit';
import { requireWrk, startApps, wrk } from '../lib/processes.ts';
import { fillSyncSnapshot, seedBenchProject } from '../lib/seed.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

const i = process.argv.indexOf('--seconds');
const seconds = i === -1 ? 10 : Number(process.argv[i + 1]);
requireWrk();
const profiles = tempDir('svc-cpu-prof-');
for (const mode of ['200', '304']) {
  const apps = await startApps(
    { SYNC_QUARANTINE_MAX: '1000000000' },
    { apiNodeArgs: ['--cpu-prof', '--cpu-prof-dir', join(profiles, mode)] },
  );
  try {
    const key = await seedBenchProject(apps, (p) => fillSyncSnapshot(apps, p));
    const url = `http://127.0.0.1:${apps.apiPort}/bench/v1/sync`;
    const auth = { 'X-Service-API-Key': key };
    const etag = (await fetch(url, { headers: auth })).headers.get('etag')!;
    const headers = mode === '304' ? { ...auth, 'If-None-Match': etag } : auth;
    wrk(url, headers, { seconds: 2 });
    const run = wrk(url, headers, { seconds });
    console.log(`${mode}: ${Math.round(run.requestsPerSecond)} req/s during the profile`);
  } finally {
    await apps.stop();
  }
  const dir = join(profiles, mode);
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: ProfileNode[] };
  const total = profile.nodes.reduce((n, node) => n + (node.hitCount ?? 0), 0);
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const place = placeOf(url, functionName);
    const name = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
    byPlace.set(place, (byPlace.get(place) ?? 0) + hits);
  }
  const pct = (n: number) => `${((100 * n) / total).toFixed(1)} %`;
  console.log(`\n${mode}: samples by place`);
  for (const [place, n] of [...byPlace].sort((a, b) => b[1] - a[1]))
    console.log(`  ${pct(n).padStart(7)}  ${place}`);
  console.log(`${mode}: top functions (self time)`);
  for (const [name, n] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`  ${pct(n).padStart(7)}  ${name}`);
  }
}

function placeOf(url: string, fn: string): string {
  if (url === '') return fn.startsWith('(') ? fn : `native: ${fn}`;
  if (url.includes('node:_http') || url.includes('node:http'))
    return 'node: http (parser callbacks, ServerResponse, headers)';
  if (
    url.includes('node:net') ||
    url.includes('node:internal/stream_base') ||
    url.includes('node:internal/streams') ||
    url.includes('node:stream')
  )
    return 'node: net and streams (socket writes)';
  if (url.startsWith('node:')) return 'node: other internals (events, timers, async hooks)';
  if (url.includes('node_modules')) return 'dependencies';
  return 'our code (route, auth, sync handler, metrics)';
}
