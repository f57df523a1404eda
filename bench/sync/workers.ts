/**
 * bench/sync/workers: `GET /v1/sync` (200 and 304) on an api with API_WORKERS=2 beside one with
 * API_WORKERS=1, both running at once on their own data, measured by the same wrk (-t1 -c50) in
 * interleaved rounds (medians). With --pin-wrk, wrk runs on CPU 1 only; the api processes float.
 *   pnpm --filter @svc/bench exec tsx sync/workers.ts [-- --seconds 5 --rounds 3 --pin-wrk]
 */
import { httpCall } from '@svc/testkit';
import { requireWrk, startApps, type Apps } from '../lib/processes.ts';
import { fillSyncSnapshot, seedBenchProject } from '../lib/seed.ts';
import { numberArg } from '../lib/bench-run.ts';
import { interleavedRounds, printResults, saveResults } from '../lib/wrk-rounds.ts';

const seconds = numberArg('--seconds', 5);
const rounds = numberArg('--rounds', 3);
const cpu = process.argv.includes('--pin-wrk') ? 1 : undefined;

requireWrk();
const started: Apps[] = [];
try {
  const targets: Array<{ name: string; url: string; key: string; etag: string }> = [];
  for (const workers of ['1', '2']) {
    const apps = await startApps({ SYNC_QUARANTINE_MAX: '1000000000', API_WORKERS: workers });
    started.push(apps);
    const key = await seedBenchProject(apps, (p) => fillSyncSnapshot(apps, p));
    // Every worker has the key once a few fresh connections all answer 200.
    for (let ok = 0; ok < 8;) {
      const res = await httpCall(apps.apiPort, 'GET', '/bench/v1/sync', {
        headers: { 'x-service-api-key': key, connection: 'close' },
      });
      ok = res.status === 200 ? ok + 1 : 0;
    }
    const first = await httpCall(apps.apiPort, 'GET', '/bench/v1/sync', {
      headers: { 'x-service-api-key': key },
    });
    targets.push({
      name: `API_WORKERS=${workers}`,
      url: `http://127.0.0.1:${apps.apiPort}/bench/v1/sync`,
      key,
      etag: first.headers.etag as string,
    });
  }
  const cases = targets.flatMap((t) => [
    [`${t.name} 200`, t.url, { 'X-Service-API-Key': t.key }] as const,
    [`${t.name} 304`, t.url, { 'X-Service-API-Key': t.key, 'If-None-Match': t.etag }] as const,
  ]);
  const results = interleavedRounds(cases, { seconds, rounds, cpu });
  const ratio = (s: string) =>
    Number(
      (
        results[`API_WORKERS=2 ${s}`]!.requestsPerSecond /
        results[`API_WORKERS=1 ${s}`]!.requestsPerSecond
      ).toFixed(2),
    );
  const summary = {
    date: new Date().toISOString(),
    seconds,
    rounds,
    wrkPinned: cpu !== undefined,
    results,
    twoOverOne: { 200: ratio('200'), 304: ratio('304') },
  };
  printResults(results);
  console.log(`2 workers / 1: 200 ${summary.twoOverOne[200]}x, 304 ${summary.twoOverOne[304]}x`);
  saveResults(`sync-workers${cpu === undefined ? '' : '-pinned-wrk'}`, summary);
} finally {
  for (const apps of started) await apps.stop();
}
