/**
 * bench/evaluate-ab: POST /v1/flags/evaluate-ab with 10 flags of 3 rules each per request,
 * beside GET /v1/sync (200) on the same api in the same run. Target: at least 0.5x sync.
 *   pnpm --filter @svc/bench bench:evaluate-ab [-- --seconds 5 --rounds 3]
 */
import { databaseEnv, numberArg } from '../lib/bench-run.ts';
import { requireWrk, startApps } from '../lib/processes.ts';
import { seedEvaluationProject } from '../lib/seed.ts';
import { interleavedRounds, printResults, saveResults } from '../lib/wrk-rounds.ts';

const seconds = numberArg('--seconds', 5);
const rounds = numberArg('--rounds', 3);
requireWrk();
const apps = await startApps({ SYNC_QUARANTINE_MAX: '1000000000', ...databaseEnv() });
try {
  const { flags, key } = await seedEvaluationProject(apps);
  const base = `http://127.0.0.1:${apps.apiPort}/bench/v1`;
  const auth = { 'X-Service-API-Key': key };
  const body = JSON.stringify({
    flags,
    user_id: 'user-48213',
    attributes: { country: 'DE', plan: 'pro', email: 'ann@example.org', app_version: '2.3.1' },
  });
  // Each case warms up as long as it is measured.
  const results = interleavedRounds(
    [
      ['evaluate-ab', `${base}/flags/evaluate-ab`, auth, { method: 'POST', body }],
      ['sync 200', `${base}/sync`, auth],
    ],
    { seconds, rounds, warmUpSeconds: seconds },
  );
  const ratio = results['evaluate-ab']!.requestsPerSecond / results['sync 200']!.requestsPerSecond;
  printResults(results);
  console.log(`evaluate-ab / sync 200: ${ratio.toFixed(2)}x (target 0.5)`);
  saveResults('evaluate-ab', {
    date: new Date().toISOString(),
    seconds,
    rounds,
    results,
    ratio: Number(ratio.toFixed(2)),
  });
} finally {
  await apps.stop();
}
