/**
 * What the wrk benches share: interleaved rounds of every case (the machine's background load
 * then hits all cases alike) with the median round of each, the table they print, and the
 * JSON they leave in bench/results/.
 */
import { wrk, type WrkOptions, type WrkResult } from './processes.ts';
import { median } from './seed.ts';
import { writeResultsFile } from './bench-run.ts';

/** One measured case: a name, the URL, the request headers, and its method and body (GET, none). */
export type WrkCase = readonly [
  name: string,
  url: string,
  headers: Record<string, string>,
  request?: Pick<WrkOptions, 'method' | 'body'>,
];

/**
 * A warm-up of each case (`warmUpSeconds`, 2 s unless given), then `rounds` rounds of every
 * case in turn; each case's median round, with the non-2xx/3xx answers of all its rounds.
 */
export function interleavedRounds(
  cases: readonly WrkCase[],
  options: { seconds: number; rounds: number; cpu?: number; warmUpSeconds?: number },
): Record<string, WrkResult> {
  const { seconds, rounds, cpu, warmUpSeconds = 2 } = options;
  for (const [, url, headers, request] of cases) {
    wrk(url, headers, { ...request, seconds: warmUpSeconds, cpu });
  }
  const runs = new Map<string, WrkResult[]>(cases.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, url, headers, request] of cases) {
      runs.get(name)!.push(wrk(url, headers, { ...request, seconds, cpu }));
    }
  }
  return Object.fromEntries(
    [...runs].map(([name, r]) => {
      const mid = median(r, (x) => x.requestsPerSecond);
      return [name, { ...mid, non2xx3xx: r.reduce((n, x) => n + x.non2xx3xx, 0) }];
    }),
  );
}

export function printResults(results: Record<string, WrkResult>): void {
  console.table(
    Object.fromEntries(
      Object.entries(results).map(([k, r]) => [
        k,
        {
          'req/s': Math.round(r.requestsPerSecond),
          'p50 ms': r.latencyP50Ms,
          'p99 ms': r.latencyP99Ms,
          errors: r.non2xx3xx,
        },
      ]),
    ),
  );
}

/** Writes `bench/results/{name}.json`; throws when any case had non-2xx/3xx answers. */
export function saveResults(
  name: string,
  summary: { results: Record<string, WrkResult>; [field: string]: unknown },
): void {
  writeResultsFile(name, summary);
  for (const r of Object.values(summary.results)) {
    if (r.non2xx3xx > 0) throw new Error('non-2xx/3xx responses in the bench');
  }
}
