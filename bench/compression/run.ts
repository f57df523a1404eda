/**
 * bench/compression: `GET /v1/sync` of a 1 MB snapshot with `Accept-Encoding: gzip` against an
 * uncompressed sync of a 100 kB snapshot, on the same api in the same run (wrk -t1 -c50,
 * interleaved rounds, medians). The encoded bytes are made once per revision, so a request for
 * them costs what a request for any prepared bytes costs: the target is ≥ 0.8x the 100 kB
 * identity rate with ≥ 5x fewer bytes on the wire, and the 304 path unchanged.
 *   pnpm --filter @svc/bench bench:compression [-- --seconds 5 --rounds 3]
 */
import { httpCall } from '@svc/testkit';
import { bulkSeed } from '../lib/bulk-seed.ts';
import { requireWrk, startApps } from '../lib/processes.ts';
import { numberArg } from '../lib/bench-run.ts';
import { interleavedRounds, printResults, saveResults } from '../lib/wrk-rounds.ts';

const seconds = numberArg('--seconds', 5);
const rounds = numberArg('--rounds', 3);

requireWrk();
const apps = await startApps({ SYNC_QUARANTINE_MAX: '1000000000' });
try {
  await apps.admin('POST', '/workspaces', { slug: 'bench', name: 'Bench' });
  const keys: Record<string, string> = {};
  // About 55 bytes of snapshot per item: 1,850 items ≈ 100 kB, 18,500 ≈ 1 MB.
  for (const [project, items] of [
    ['small', 1_850],
    ['big', 18_500],
  ] as const) {
    await apps.admin('POST', '/workspaces/bench/projects', { slug: project, name: project });
    await bulkSeed(
      { DATA_DIR: apps.dataDir, DATABASE_URL: process.env.DATABASE_URL },
      { workspace: 'bench', project, from: 0, to: items },
    );
    const created = await apps.admin('POST', `/workspaces/bench/projects/${project}/keys`, {
      kind: 'secret',
    });
    keys[project] = created.json().key as string;
  }
  const sync = (project: string, headers: Record<string, string> = {}) =>
    httpCall(apps.apiPort, 'GET', '/bench/v1/sync', {
      headers: { 'x-service-api-key': keys[project]!, ...headers },
    });
  // Until the api has the key and the big revision's gzip bytes (made off the event loop).
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await sync('big', { 'accept-encoding': 'gzip' });
    if (res.headers['content-encoding'] === 'gzip' && (await sync('small')).status === 200) break;
    if (Date.now() > deadline)
      throw new Error(`the big snapshot never came gzipped: ${res.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const small = await sync('small');
  const big = await sync('big');
  const bigGzip = await sync('big', { 'accept-encoding': 'gzip' });
  const bigBr = await sync('big', { 'accept-encoding': 'br' });
  const url = `http://127.0.0.1:${apps.apiPort}/bench/v1/sync`;
  const cases: Record<string, Record<string, string>> = {
    'identity 100 kB': { 'X-Service-API-Key': keys.small! },
    'gzip 1 MB': { 'X-Service-API-Key': keys.big!, 'Accept-Encoding': 'gzip' },
    'identity 1 MB': { 'X-Service-API-Key': keys.big! },
    '304 identity 100 kB': {
      'X-Service-API-Key': keys.small!,
      'If-None-Match': small.headers.etag as string,
    },
    '304 gzip 1 MB': {
      'X-Service-API-Key': keys.big!,
      'Accept-Encoding': 'gzip',
      'If-None-Match': bigGzip.headers.etag as string,
    },
  };
  const results = interleavedRounds(
    Object.entries(cases).map(([name, headers]) => [name, url, headers] as const),
    { seconds, rounds },
  );
  const rps = (name: string) => results[name]!.requestsPerSecond;
  const summary = {
    date: new Date().toISOString(),
    seconds,
    rounds,
    bytes: {
      identity100k: small.bytes.length,
      identity1M: big.bytes.length,
      gzip1M: bigGzip.bytes.length,
      br1M: bigBr.bytes.length,
    },
    results,
    gzip1MOverIdentity100k: Number((rps('gzip 1 MB') / rps('identity 100 kB')).toFixed(2)),
    fewerBytes: Number((big.bytes.length / bigGzip.bytes.length).toFixed(1)),
    notModifiedGzipOverIdentity: Number(
      (rps('304 gzip 1 MB') / rps('304 identity 100 kB')).toFixed(2),
    ),
  };
  printResults(results);
  console.log(
    `bytes: identity 100 kB ${summary.bytes.identity100k}, 1 MB ${summary.bytes.identity1M}, gzip ${summary.bytes.gzip1M} (${summary.fewerBytes}x fewer), br ${summary.bytes.br1M}`,
  );
  console.log(
    `gzip 1 MB / identity 100 kB: ${summary.gzip1MOverIdentity100k}x (target 0.8); 304 gzip 1 MB / 304 identity 100 kB: ${summary.notModifiedGzipOverIdentity}x`,
  );
  saveResults('compression', summary);
} finally {
  await apps.stop();
}
