/**
 * bench/ofrep: the OpenFeature (OFREP) endpoints beside their /v1 counterparts on the same api in
 * the same run, rounds interleaved. The project holds 10 flags of 3 rules each and 100 configs
 * (as bench/evaluate-ab), the AB Testing add-on on; every request is for one user with 4
 * attributes.
 *   - OFREP single evaluation of one flag vs evaluate-ab of that one flag (target: >= 0.8x)
 *   - OFREP bulk 304 (If-None-Match) vs sync 304 (target: >= 0.8x)
 *   - OFREP bulk 200 (every flag evaluated for the user, 110 entries) vs sync 200
 *   pnpm --filter @svc/bench bench:ofrep [-- --seconds 5 --rounds 3]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpCall } from '@svc/testkit';
import { repoRoot, requireWrk, startApps, wrk, type WrkResult } from '../lib/processes.ts';
import { median, seedEvaluationProject } from '../lib/seed.ts';

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
  const api = `http://127.0.0.1:${apps.apiPort}/bench`;
  const attributes = { country: 'DE', plan: 'pro', email: 'ann@example.org', app_version: '2.3.1' };
  const user = 'user-48213';
  const flag = flags[4]!;
  const v1 = { 'X-Service-API-Key': key };
  const ofrep = { Authorization: `Bearer ${key}` };
  const ofrepBody = JSON.stringify({ context: { targetingKey: user, ...attributes } });
  const post = { method: 'POST', seconds };

  const first = await httpCall(apps.apiPort, 'POST', '/bench/ofrep/v1/evaluate/flags', {
    headers: { authorization: `Bearer ${key}` },
    rawBody: ofrepBody,
  });
  const bulkEtag = first.headers.etag as string;
  const syncEtag = (
    await httpCall(apps.apiPort, 'GET', '/bench/v1/sync', { headers: { 'x-service-api-key': key } })
  ).headers.etag as string;
  if (first.status !== 200 || first.json().flags.length !== 110 || !bulkEtag || !syncEtag) {
    throw new Error(`unexpected bulk answer ${first.status}`);
  }

  const loads: Record<string, () => WrkResult> = {
    'ofrep single': () =>
      wrk(`${api}/ofrep/v1/evaluate/flags/${flag}`, ofrep, { ...post, body: ofrepBody }),
    'evaluate-ab 1 flag': () =>
      wrk(`${api}/v1/flags/evaluate-ab`, v1, {
        ...post,
        body: JSON.stringify({ flags: [flag], user_id: user, attributes }),
      }),
    'ofrep bulk 304': () =>
      wrk(
        `${api}/ofrep/v1/evaluate/flags`,
        { ...ofrep, 'If-None-Match': bulkEtag },
        {
          ...post,
          body: ofrepBody,
        },
      ),
    'sync 304': () => wrk(`${api}/v1/sync`, { ...v1, 'If-None-Match': syncEtag }, { seconds }),
    'ofrep bulk 200': () =>
      wrk(`${api}/ofrep/v1/evaluate/flags`, ofrep, { ...post, body: ofrepBody }),
    'sync 200': () => wrk(`${api}/v1/sync`, v1, { seconds }),
  };
  for (const load of Object.values(loads)) load();
  const runs: Record<string, WrkResult[]> = {};
  for (let r = 0; r < rounds; r++) {
    for (const [name, load] of Object.entries(loads)) (runs[name] ??= []).push(load());
  }
  const results = Object.fromEntries(
    Object.entries(runs).map(([name, all]) => [name, median(all, (x) => x.requestsPerSecond)]),
  );
  const rps = (name: string) => results[name]!.requestsPerSecond;
  const ratios = {
    'ofrep single / evaluate-ab 1 flag (target 0.8)':
      rps('ofrep single') / rps('evaluate-ab 1 flag'),
    'ofrep bulk 304 / sync 304 (target 0.8)': rps('ofrep bulk 304') / rps('sync 304'),
    'ofrep bulk 200 / sync 200': rps('ofrep bulk 200') / rps('sync 200'),
  };
  console.table(
    Object.fromEntries(
      Object.entries(results).map(([k, r]) => [
        k,
        {
          'req/s': Math.round(r.requestsPerSecond),
          'p50 ms': r.latencyP50Ms,
          'p99 ms': r.latencyP99Ms,
        },
      ]),
    ),
  );
  for (const [name, ratio] of Object.entries(ratios)) console.log(`${name}: ${ratio.toFixed(2)}x`);
  const errors = Object.values(runs)
    .flat()
    .reduce((n, r) => n + r.non2xx3xx, 0);
  mkdirSync(join(repoRoot, 'bench/results'), { recursive: true });
  writeFileSync(
    join(repoRoot, 'bench/results/ofrep.json'),
    JSON.stringify(
      {
        date: new Date().toISOString(),
        database: process.env.DATABASE_URL ? 'postgresql' : 'sqlite',
        seconds,
        rounds,
        results,
        ratios: Object.fromEntries(
          Object.entries(ratios).map(([k, v]) => [k, Number(v.toFixed(2))]),
        ),
        errors,
      },
      null,
      2,
    ) + '\n',
  );
  if (errors > 0) throw new Error(`${errors} non-2xx/3xx responses`);
} finally {
  await apps.stop();
}
