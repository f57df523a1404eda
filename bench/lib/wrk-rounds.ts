/**
 * What the wrk benches share: interleaved rounds of every case (the machine's background load
 * then hits all cases alike) with the median round of each, the table they print, and the
 * JSON they leave in bench/results/.
 */
import { wrk, type WrkOptions, type WrkResult } from './processes.ts';
import { median } from './seed.ts';
import { cpuMs } from './proc-stats.ts';
import { writeResultsFile } from './bench-run.ts';

/** One measured case: a name, the URL, the request headers, and its method and body (GET, none). */
export type WrkCase = readonly [
  name: string,
  url: string,
  headers: Record<string, string>,
  request?: Pick<WrkOptions, 'method' | 'body'>,
];

/** A round's result, with the CPU time the measured server spent per request when asked for. */
export interface RoundResult extends WrkResult {
  serverCpuMicrosPerRequest?: number;
}

/**
 * A warm-up of each case (`warmUpSeconds`, 2 s unless given), then `rounds` rounds of every
 * case in turn; each case's median round, with the non-2xx/3xx answers of all its rounds.
 * With `serverPid` (one process, or the one serving each case by its name), each round also
 * reads the CPU time that process spent (user + system, from /proc) per request: on a machine
 * of two cores, where the load generator and the server share, it is steadier than requests
 * per second (and best with both pinned).
 */
export function interleavedRounds(
  cases: readonly WrkCase[],
  options: {
    seconds: number;
    rounds: number;
    cpu?: number;
    warmUpSeconds?: number;
    serverPid?: number | ((name: string) => number);
  },
): Record<string, RoundResult> {
  const { seconds, rounds, cpu, warmUpSeconds = 2, serverPid } = options;
  for (const [, url, headers, request] of cases) {
    wrk(url, headers, { ...request, seconds: warmUpSeconds, cpu });
  }
  const runs = new Map<string, RoundResult[]>(cases.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, url, headers, request] of cases) {
      const pid = typeof serverPid === 'function' ? serverPid(name) : serverPid;
      const before = pid === undefined ? 0 : cpuMs(pid) * 1000;
      const result: RoundResult = wrk(url, headers, { ...request, seconds, cpu });
      if (pid !== undefined) {
        const requests = result.requestsPerSecond * seconds;
        result.serverCpuMicrosPerRequest = round1((cpuMs(pid) * 1000 - before) / requests);
      }
      runs.get(name)!.push(result);
    }
  }
  return Object.fromEntries(
    [...runs].map(([name, r]) => {
      const mid = median(r, (x) => x.requestsPerSecond);
      return [name, { ...mid, non2xx3xx: r.reduce((n, x) => n + x.non2xx3xx, 0) }];
    }),
  );
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export function printResults(results: Record<string, RoundResult>): void {
  console.table(
    Object.fromEntries(
      Object.entries(results).map(([k, r]) => [
        k,
        {
          'req/s': Math.round(r.requestsPerSecond),
          'p50 ms': r.latencyP50Ms,
          'p99 ms': r.latencyP99Ms,
          ...(r.serverCpuMicrosPerRequest === undefined
            ? {}
            : { 'server µs/req': r.serverCpuMicrosPerRequest }),
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
