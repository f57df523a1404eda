/**
 * bench/secrets: sustained secret writes per second through HTTP (rate limit lifted), and
 * /v1/sync latency while the writes run, beside sync latency on an idle api.
 *   pnpm --filter @svc/bench bench:secrets [-- --seconds 10]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, requireWrk, startApps, wrk, wrkAsync } from '../lib/processes.ts';
import { seedBenchProject } from '../lib/seed.ts';
import { databaseEnv, numberArg } from '../lib/bench-run.ts';

const seconds = numberArg('--seconds', 10);
requireWrk();
const apps = await startApps({
  SYNC_QUARANTINE_MAX: '1000000000',
  WRITE_RATE_LIMIT_MAX: '1000000000',
  ...databaseEnv(),
});
try {
  const key = await seedBenchProject(apps, async (p) => {
    for (let n = 0; n < 20; n++)
      await apps.admin('PUT', `${p}/secrets/vendor.key_${n}`, { value: `v${n}` });
  });
  const base = `http://127.0.0.1:${apps.apiPort}/bench/v1`;
  const auth = { 'X-Service-API-Key': key };
  const syncIdle = wrk(`${base}/sync`, auth, { seconds, connections: 10 });
  // Writes and syncs at once: 8 writers on one secret, 10 readers.
  const [writes, syncBusy] = await Promise.all([
    wrkAsync(`${base}/secrets/bench.rotating`, auth, {
      seconds,
      connections: 8,
      method: 'PUT',
      body: JSON.stringify({ value: 'x'.repeat(64) }),
    }),
    wrkAsync(`${base}/sync`, auth, { seconds, connections: 10 }),
  ]);
  const summary = {
    date: new Date().toISOString(),
    storage: process.env.DATABASE_URL ? 'postgres' : 'sqlite',
    seconds,
    writesPerSecond: Math.round(writes.requestsPerSecond),
    writeLatencyP50Ms: writes.latencyP50Ms,
    writeLatencyP99Ms: writes.latencyP99Ms,
    syncIdle,
    syncDuringWrites: syncBusy,
    errors: writes.non2xx3xx + syncBusy.non2xx3xx + syncIdle.non2xx3xx,
  };
  console.log(JSON.stringify(summary, null, 2));
  mkdirSync(join(repoRoot, 'bench/results'), { recursive: true });
  writeFileSync(
    join(repoRoot, `bench/results/secrets-${summary.storage}.json`),
    JSON.stringify(summary, null, 2) + '\n',
  );
  if (summary.errors > 0) throw new Error(`${summary.errors} non-2xx responses`);
} finally {
  await apps.stop();
}
