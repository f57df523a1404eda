/**
 * bench/evaluate-ab: POST /v1/flags/evaluate-ab with 10 flags of 3 rules each per request,
 * beside GET /v1/sync (200) on the same api in the same run. Target: at least 0.5x sync.
 *   pnpm --filter @svc/bench bench:evaluate-ab [-- --seconds 5 --rounds 3]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, requireWrk, startApps, wrk, type WrkResult } from '../lib/processes.ts';
import { median, seedEvaluationProject } from '../lib/seed.ts';
import { printResults } from '../lib/wrk-rounds.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const seconds = arg('--seconds', 5);
const rounds = arg('--rounds', 3);
requireWrk();
const apps = await startApps({
  SYNC_QUARANTINE_MAX: '1000000000',
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
});
try {
  const { flags, key } = await seedEvaluationProject(apps);
  const base = `http://127.0.0.1:${apps.apiPort}/bench/v1`;
  const auth = { 'X-Service-API-Key': key };
  const body = JSON.stringify({
    flags,
    user_id: 'user-48213',
    attributes: { country: 'DE', plan: 'pro', email: 'ann@example.org', app_version: '2.3.1' },
  });
  const evaluate = () => wrk(`${base}/flags/evaluate-ab`, auth, { seconds, method: 'POST', body });
  const sync = () => wrk(`${base}/sync`, auth, { seconds });
  evaluate();
  sync();
  const runs = { 'evaluate-ab': [] as WrkResult[], 'sync 200': [] as WrkResult[] };
  for (let r = 0; r < rounds; r++) {
    runs['evaluate-ab'].push(evaluate());
    runs['sync 200'].push(sync());
  }
  const results = {
    'evaluate-ab': median(runs['evaluate-ab'], (x) => x.requestsPerSecond),
    'sync 200': median(runs['sync 200'], (x) => x.requestsPerSecond),
  };
  const ratio = results['evaluate-ab'].requestsPerSecond / results['sync 200'].requestsPerSecond;
  printResults(results);
  console.log(`evaluate-ab / sync 200: ${ratio.toFixed(2)}x (target 0.5)`);
  const errors = Object.values(runs)
    .flat()
    .reduce((n, r) => n + r.non2xx3xx, 0);
  mkdirSync(join(repoRoot, 'bench/results'), { recursive: true });
  writeFileSync(
    join(repoRoot, 'bench/results/evaluate-ab.json'),
    JSON.stringify(
      {
        date: new Date().toISOString(),
        seconds,
        rounds,
        results,
        ratio: Number(ratio.toFixed(2)),
        errors,
      },
      null,
      2,
    ) + '\n',
  );
  if (errors > 0) throw new Error(`${errors} non-2xx responses`);
} finally {
  await apps.stop();
}
