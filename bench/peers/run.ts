/**
 * bench/peers: our `GET /v1/sync` beside Unleash Edge's `GET /api/client/features` (Rust, the
 * peer to beat) and Unleash's own server's (`unleash-server`: Node and Express, on a PostgreSQL
 * of its own), nginx serving our snapshot's bytes from one worker with `etag on` (the machine's
 * own limit) and a raw node:http server sending the same bytes, all measured by the same wrk
 * (-t1 -c50) in the same run, 200 and 304, in interleaved rounds (medians).
 * With --pin each server (PostgreSQL included) runs on CPU 0 and wrk on CPU 1; without, the
 * kernel places them, and `--workers N` runs ours as API_WORKERS=N (Edge's threads take every
 * core unpinned; this lets ours do the same).
 *   pnpm --filter @svc/bench bench:peers [-- --seconds 5 --rounds 3 --pin --workers 2 --no-edge --no-unleash]
 */
import { type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { freePort, httpCall } from '@svc/testkit';
import { requireWrk, startApps, startRawServer } from '../lib/processes.ts';
import { fillSyncSnapshot, seedBenchProject } from '../lib/seed.ts';
import { interleavedRounds, printResults, saveResults, type WrkCase } from '../lib/wrk-rounds.ts';
import { numberArg, pinToCpu0 } from '../lib/bench-run.ts';
import { startNginx } from './nginx.ts';
import { EDGE_TOKEN, startUnleashEdge } from './unleash-edge.ts';
import {
  startUnleashPeer,
  UNLEASH_CLIENT_TOKEN,
  UNLEASH_SERVER_VERSION,
  type UnleashPeer,
} from './unleash-server.ts';

const seconds = numberArg('--seconds', 5);
const rounds = numberArg('--rounds', 3);
const workers = numberArg('--workers', 1);
const pin = process.argv.includes('--pin');
const withEdge = !process.argv.includes('--no-edge');
const withUnleash = !process.argv.includes('--no-unleash');
/** The machine is shared: the 1-minute load average when the bench starts and ends. */
const loadAtStart = loadavg()[0]!;

/** Pins a running server (every thread) to CPU 0 with --pin. */
function pinPid(pid: number): void {
  if (pin) pinToCpu0(pid);
}
const pinToCpu0 = (child: ChildProcess) => pinPid(child.pid!);

async function ready(port: number, path: string, headers: Record<string, string>) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await httpCall(port, 'GET', path, { headers }).catch(() => undefined);
    if (res?.status === 200) return res;
    if (Date.now() > deadline) throw new Error(`nothing answered 200 on ${port}${path}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

requireWrk();
if (pin && workers > 1)
  throw new Error('--workers is for unpinned runs: pinned, every server has one core');
const apps = await startApps({ SYNC_QUARANTINE_MAX: '1000000000', API_WORKERS: String(workers) });
const others: ChildProcess[] = [];
let unleash: UnleashPeer | undefined;
try {
  pinToCpu0(apps.api);
  const key = await seedBenchProject(apps, (p) => fillSyncSnapshot(apps, p));
  const ours = await ready(apps.apiPort, '/bench/v1/sync', { 'x-service-api-key': key });
  const snapshot = join(apps.dataDir, 'snapshot.json');
  writeFileSync(snapshot, ours.bytes);

  const targets: Record<
    string,
    { url: string; headers: Record<string, string>; etag: string; bytes: number }
  > = {
    ours: {
      url: `http://127.0.0.1:${apps.apiPort}/bench/v1/sync`,
      headers: { 'X-Service-API-Key': key },
      etag: ours.headers.etag as string,
      bytes: ours.bytes.length,
    },
  };

  const raw = await startRawServer(ours.bytes, targets.ours!.etag);
  others.push(raw.process);
  pinToCpu0(raw.process);
  targets['raw node:http'] = {
    ...targets.ours!,
    url: `http://127.0.0.1:${raw.port}/bench/v1/sync`,
  };

  const nginxPort = await freePort();
  const nginx = startNginx(apps.dataDir, nginxPort, '/bench/v1/sync', snapshot);
  others.push(nginx);
  const fromNginx = await ready(nginxPort, '/bench/v1/sync', {});
  pinToCpu0(nginx);
  targets.nginx = {
    url: `http://127.0.0.1:${nginxPort}/bench/v1/sync`,
    headers: {},
    etag: fromNginx.headers.etag as string,
    bytes: fromNginx.bytes.length,
  };

  if (withEdge) {
    const edgePort = await freePort();
    const edge = startUnleashEdge(apps.dataDir, edgePort);
    others.push(edge);
    const auth = { Authorization: EDGE_TOKEN };
    const fromEdge = await ready(edgePort, '/api/client/features', auth);
    pinToCpu0(edge);
    targets['Unleash Edge'] = {
      url: `http://127.0.0.1:${edgePort}/api/client/features`,
      headers: auth,
      etag: fromEdge.headers.etag as string,
      bytes: fromEdge.bytes.length,
    };
  }

  if (withUnleash) {
    unleash = await startUnleashPeer(pinPid);
    const auth = { Authorization: UNLEASH_CLIENT_TOKEN };
    const fromUnleash = await ready(unleash.port, '/api/client/features', auth);
    targets['Unleash server'] = {
      url: `http://127.0.0.1:${unleash.port}/api/client/features`,
      headers: auth,
      etag: fromUnleash.headers.etag as string,
      bytes: fromUnleash.bytes.length,
    };
  }

  const cases: WrkCase[] = [];
  for (const [name, t] of Object.entries(targets)) {
    cases.push([`${name} 200`, t.url, t.headers]);
    if (t.etag) cases.push([`${name} 304`, t.url, { ...t.headers, 'If-None-Match': t.etag }]);
  }
  const results = interleavedRounds(cases, { seconds, rounds, cpu: pin ? 1 : undefined });
  const rps = (name: string) => results[name]?.requestsPerSecond ?? NaN;
  const ratio = (a: string, b: string) => Number((rps(a) / rps(b)).toFixed(2));
  const summary = {
    date: new Date().toISOString(),
    pinned: pin,
    workers,
    loadAverage: { start: loadAtStart, end: loadavg()[0]! },
    unleashServer: withUnleash ? UNLEASH_SERVER_VERSION : undefined,
    seconds,
    rounds,
    bodyBytes: Object.fromEntries(Object.entries(targets).map(([k, t]) => [k, t.bytes])),
    results,
    oursOverEdge: {
      200: ratio('ours 200', 'Unleash Edge 200'),
      304: ratio('ours 304', 'Unleash Edge 304'),
    },
    oursOverUnleashServer: {
      200: ratio('ours 200', 'Unleash server 200'),
      304: ratio('ours 304', 'Unleash server 304'),
    },
    oursOverNginx: { 200: ratio('ours 200', 'nginx 200'), 304: ratio('ours 304', 'nginx 304') },
    oursOverRaw: {
      200: ratio('ours 200', 'raw node:http 200'),
      304: ratio('ours 304', 'raw node:http 304'),
    },
  };
  printResults(results);
  console.log(
    JSON.stringify({
      bodyBytes: summary.bodyBytes,
      oursOverEdge: summary.oursOverEdge,
      oursOverUnleashServer: summary.oursOverUnleashServer,
      oursOverNginx: summary.oursOverNginx,
      oursOverRaw: summary.oursOverRaw,
    }),
  );
  saveResults(
    `peers-${pin ? 'pinned' : 'unpinned'}${workers > 1 ? `-${workers}-workers` : ''}`,
    summary,
  );
} finally {
  for (const child of others) child.kill('SIGTERM');
  await unleash?.stop();
  await apps.stop();
}
