/**
 * bench/sync: GET /v1/sync 200 and 304 on the real api (separate processes, SQLite or
 * DATABASE_URL), beside a raw node:http server sending the same bytes, in the same run.
 * Snapshot: 100 configs, 50 flags, 20 secrets. wrk -t1 -c50.
 *   pnpm --filter @svc/bench bench:sync [-- --seconds 5 --rounds 3]
 */
import { fork } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { httpCall } from '@svc/testkit';
import { repoRoot, requireWrk, startApps, wrk, type WrkResult } from '../lib/processes.ts';
import { fillSyncSnapshot, median, seedBenchProject } from '../lib/seed.ts';
import { printResults } from '../lib/wrk-rounds.ts';
import { databaseEnv, numberArg } from '../lib/bench-run.ts';

const seconds = numberArg('--seconds', 5);
const rounds = numberArg('--rounds', 3);

function medianRun(runs: WrkResult[]): WrkResult {
  const mid = median(runs, (r) => r.requestsPerSecond);
  return { ...mid, non2xx3xx: runs.reduce((n, r) => n + r.non2xx3xx, 0) };
}
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
  const bodyFile = join(apps.dataDir, 'snapshot.json');
  writeFileSync(bodyFile, first.text);

  const rawPort = apps.apiPort + 2000;
  const raw = fork(join(repoRoot, 'bench/lib/raw-server.ts'), [String(rawPort), bodyFile, etag], {
    execArgv: ['--import', 'tsx'],
    stdio: 'ignore',
  });
  await new Promise((r) => raw.once('message', r));
  const rawUrl = `http://127.0.0.1:${rawPort}/bench/v1/sync`;
  try {
    const auth = { 'X-Service-API-Key': key };
    const cond = { ...auth, 'If-None-Match': etag };
    wrk(url, auth, { seconds: 2 }); // warm-up (JIT) for both
    wrk(rawUrl, auth, { seconds: 2 });
    // Interleaved rounds, median of each: the machine's background load hits both sides alike.
    const runs: Record<string, WrkResult[]> = {
      'api 200': [],
      'raw 200': [],
      'api 304': [],
      'raw 304': [],
    };
    for (let round = 0; round < rounds; round++) {
      runs['api 200']!.push(wrk(url, auth, { seconds }));
      runs['raw 200']!.push(wrk(rawUrl, auth, { seconds }));
      runs['api 304']!.push(wrk(url, cond, { seconds }));
      runs['raw 304']!.push(wrk(rawUrl, cond, { seconds }));
    }
    const results = Object.fromEntries(
      Object.entries(runs).map(([name, r]) => [name, medianRun(r)]),
    ) as Record<string, WrkResult>;
    const ratio200 = results['api 200']!.requestsPerSecond / results['raw 200']!.requestsPerSecond;
    const ratio304 = results['api 304']!.requestsPerSecond / results['raw 304']!.requestsPerSecond;
    const summary = {
      date: new Date().toISOString(),
      storage: process.env.DATABASE_URL ? 'postgres' : 'sqlite',
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
    mkdirSync(join(repoRoot, 'bench/results'), { recursive: true });
    writeFileSync(
      join(repoRoot, `bench/results/sync-${summary.storage}.json`),
      JSON.stringify(summary, null, 2) + '\n',
    );
    for (const r of Object.values(results))
      if (r.non2xx3xx > 0) throw new Error('non-2xx/3xx responses in the bench');
  } finally {
    raw.kill();
  }
} finally {
  await apps.stop();
}
