/**
 * bench/ofrep: the OpenFeature (OFREP) endpoints beside their /v1 counterparts on the same api in
 * the same run, rounds interleaved. The project holds 10 flags of 3 rules each and 100 configs
 * (as bench/evaluate-ab), the AB Testing add-on on; every request is for one user with 4
 * attributes.
 *   - OFREP single evaluation of one flag vs evaluate-ab of that one flag (target: >= 0.8x)
 *   - OFREP bulk 304 (If-None-Match) vs sync 304 (target: >= 0.8x), beside the floor under it: a
 *     raw node:http server's 304 to the same POST against its 304 to a GET
 *   - OFREP bulk 200 (every flag evaluated for the user, 110 entries) vs sync 200
 * Each round also reads the api's CPU time per request (/proc); with --pin the api runs on CPU 0
 * and wrk on CPU 1, which makes both figures steadier on a machine of two cores.
 *   pnpm --filter @svc/bench bench:ofrep [-- --seconds 5 --rounds 3 --pin]
 */
import { httpCall } from '@svc/testkit';
import { databaseEnv, databaseName, numberArg, pinToCpu0 } from '../lib/bench-run.ts';
import { requireWrk, startApps, startRawServer } from '../lib/processes.ts';
import { seedEvaluationProject } from '../lib/seed.ts';
import { interleavedRounds, printResults, saveResults, type WrkCase } from '../lib/wrk-rounds.ts';

const seconds = numberArg('--seconds', 5);
const rounds = numberArg('--rounds', 3);
const pin = process.argv.includes('--pin');
requireWrk();
const apps = await startApps({ SYNC_QUARANTINE_MAX: '1000000000', ...databaseEnv() });
const raw = await startRawServer('{}', '"raw"');
try {
  if (pin) [apps.api, raw.process].forEach((p) => pinToCpu0(p.pid!));
  const { flags, key } = await seedEvaluationProject(apps);
  const api = `http://127.0.0.1:${apps.apiPort}/bench`;
  const attributes = { country: 'DE', plan: 'pro', email: 'ann@example.org', app_version: '2.3.1' };
  const user = 'user-48213';
  const flag = flags[4]!;
  const v1 = { 'X-Service-API-Key': key };
  const ofrep = { Authorization: `Bearer ${key}` };
  const ofrepBody = JSON.stringify({ context: { targetingKey: user, ...attributes } });
  const post = { method: 'POST', body: ofrepBody };
  const rawUrl = `http://127.0.0.1:${raw.port}/bench/ofrep/v1/evaluate/flags`;

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

  const cases: WrkCase[] = [
    ['ofrep single', `${api}/ofrep/v1/evaluate/flags/${flag}`, ofrep, post],
    [
      'evaluate-ab 1 flag',
      `${api}/v1/flags/evaluate-ab`,
      v1,
      { method: 'POST', body: JSON.stringify({ flags: [flag], user_id: user, attributes }) },
    ],
    [
      'ofrep bulk 304',
      `${api}/ofrep/v1/evaluate/flags`,
      { ...ofrep, 'If-None-Match': bulkEtag },
      post,
    ],
    ['sync 304', `${api}/v1/sync`, { ...v1, 'If-None-Match': syncEtag }],
    ['raw POST 304', rawUrl, { ...ofrep, 'If-None-Match': '"raw"' }, post],
    ['raw GET 304', rawUrl, { ...v1, 'If-None-Match': '"raw"' }],
    ['ofrep bulk 200', `${api}/ofrep/v1/evaluate/flags`, ofrep, post],
    ['sync 200', `${api}/v1/sync`, v1],
  ];
  // Each case warms up as long as it is measured.
  const results = interleavedRounds(cases, {
    seconds,
    rounds,
    warmUpSeconds: seconds,
    serverPid: (name) => (name.startsWith('raw') ? raw.process : apps.api).pid!,
    cpu: pin ? 1 : undefined,
  });
  const rps = (name: string) => results[name]!.requestsPerSecond;
  const ratios = {
    'ofrep single / evaluate-ab 1 flag (target 0.8)':
      rps('ofrep single') / rps('evaluate-ab 1 flag'),
    'ofrep bulk 304 / sync 304 (target 0.8)': rps('ofrep bulk 304') / rps('sync 304'),
    'raw node:http POST 304 / GET 304 (the floor)': rps('raw POST 304') / rps('raw GET 304'),
    'ofrep bulk 200 / sync 200': rps('ofrep bulk 200') / rps('sync 200'),
  };
  printResults(results);
  for (const [name, ratio] of Object.entries(ratios)) console.log(`${name}: ${ratio.toFixed(2)}x`);
  saveResults('ofrep', {
    date: new Date().toISOString(),
    database: databaseName(),
    pinned: pin,
    seconds,
    rounds,
    results,
    ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, Number(v.toFixed(2))])),
  });
} finally {
  raw.process.kill();
  await apps.stop();
}
