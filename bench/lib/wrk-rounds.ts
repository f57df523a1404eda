/**
 * What the wrk benches share: their numeric arguments, interleaved rounds of every case (the
 * machine's background load then hits all cases alike) with the median round of each, the
 * table they print, and the JSON they leave in bench/results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, wrk, type WrkResult } from './processes.ts';
import { median } from './seed.ts';

/** `--name N` from the command line, or `fallback`. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

/** One measured case: a name, the URL and the request headers. */
export type WrkCase = readonly [name: string, url: string, headers: Record<string, string>];

/** A 2 s warm-up of each case, then `rounds` rounds of every case in turn; each case's median. */
export function interleavedRounds(
  cases: readonly WrkCase[],
  options: { seconds: number; rounds: number; cpu?: number },
): Record<string, WrkResult> {
  const { seconds, rounds, cpu } = options;
  for (const [, url, headers] of cases) wrk(url, headers, { seconds: 2, cpu });
  const runs = new Map<string, WrkResult[]>(cases.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, url, headers] of cases) {
      runs.get(name)!.push(wrk(url, headers, { seconds, cpu }));
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
export function saveResults(name: string, summary: { results: Record<string, WrkResult> }): void {
  mkdirSync(join(repoRoot, 'bench/results'), { recursive: true });
  writeFileSync(
    join(repoRoot, `bench/results/${name}.json`),
    JSON.stringify(summary, null, 2) + '\n',
  );
  for (const r of Object.values(summary.results)) {
    if (r.non2xx3xx > 0) throw new Error('non-2xx/3xx responses in the bench');
  }
}
