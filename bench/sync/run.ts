/**
 * bench/sync: GET /v1/sync 200 and 304 on the real api (separate processes, SQLite or
 * DATABASE_URL), beside a raw node:http server sending the same bytes, in the same run.
 * Snapshot: 100 configs, 50 flags, 20 secrets. wrk -t1 -c50. Each round also reads the api's
 * CPU time per request; with --pin both servers run on CPU 0 and wrk on CPU 1.
 *   pnpm --filter @svc/bench bench:sync [-- --seconds 5 --rounds 3 --pin]
 */
import { httpCall } from '@svc/testkit';
import { requireWrk, startApps, startRawServer } from '../lib/processes.ts';
import { fillSyncSnapshot, seedBenchProject } from '../lib/seed.ts';
import { interleavedRounds, printResults, saveResults } from '../lib/wrk-rounds.ts';
import { databaseEnv, numberArg, pinToCpu0 } from '../lib/bench-run.ts';

const seconds = numberArg('--seconds', 5);
const rounds = numberArg('--rounds', 3);
const pin = process.argv.includes('--pin');
requireWrk();
// The bench key syncs far more than a real client: lift the quarantine so it measures serving.
const apps = await startApps({
  SYNC_QUARANTINE_MAX: '1000000000',
  ...databaseEnv(),
});
try {
  const key = await seedBenchProject(apps, (p) => fillSyncSnapshot(apps, p));
  const url = `http://127.0.0.1:${apps.apiPort}/bench/v1/sync`;
  const first = await httpCall(apps.apiPort, 'GET', '/bench/v1/sync', {
    headers: { 'x-service-api-key': key },
  });
  const etag = first.headers.etag as string;
  const raw = await startRawServer(first.text, etag);
  try {
    if (pin) [apps.api, raw.process].forEach((p) => pinToCpu0(p.pid!));
    const rawUrl = `http://127.0.0.1:${raw.port}/bench/v1/sync`;
    const auth = { 'X-Service-API-Key': key };
    const cond = { ...auth, 'If-None-Match': etag };
    // Interleaved rounds, median of each: the machine's background load hits both sides alike.
    const results = interleavedRounds(
      [
        ['api 200', url, auth],
        ['raw 200', rawUrl, auth],
        ['api 304', url, cond],
        ['raw 304', rawUrl, cond],
      ],
      {
        seconds,
        rounds,
        cpu: pin ? 1 : undefined,
        serverPid: (name) => (name.startsWith('raw') ? raw.process : apps.api).pid!,
      },
    );
    const ratio200 = results['api 200']!.requestsPerSecond / results['raw 200']!.requestsPerSecond;
    const ratio304 = results['api 304']!.requestsPerSecond / results['raw 304']!.requestsPerSecond;
    const summary = {
      date: new Date().toISOString(),
      storage: process.env.DATABASE_URL ? 'postgres' : 'sqlite',
      pinned: pin,
      bodyBytes: Buffer.byteLength(first.text),
      connections: 50,
      seconds,
      rounds,
      results,
      ratio200: Number(ratio200.toFixed(2)),
      ratio304: Number(ratio304.toFixed(2)),
    };
    printResults(results);
    console.log(
      `body ${summary.bodyBytes} bytes; api/raw: 200 path ${summary.ratio200}x (target 0.6), 304 path ${summary.ratio304}x (target 0.7)`,
    );
    saveResults(`sync-${summary.storage}`, summary);
  } finally {
    raw.process.kill();
  }
} finally {
  await apps.stop();
}
