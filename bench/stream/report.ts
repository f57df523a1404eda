/**
 * The stream bench's table: one row per (items, workers, streams) with the api's latencies,
 * memory and start-up, and the raw fan-out baseline of the same run beside them.
 */
import { cpus } from 'node:os';
import type { LoadResult } from './load-generator.ts';

export const TABLE_HEAD = [
  '| items | workers | streams | p50 | p99 | max | p99 of one round: median (min–max) | warm-up p99 / max (rounds) | read p50 / p99 | console PUT p50 | missing | api RSS idle MB | api RSS with streams MB | api RSS peak MB | connect s | load-gen CPU connecting ms | load-gen CPU per round ms | api cold start ms / its CPU ms | api KB per stream | raw fan-out p50 / p99 | raw read p50 / p99 | raw RSS idle / with streams MB | raw KB per stream |',
  '|---:|---:|---:|---:|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---:|',
];

/** What one row measured. */
export interface RowRun {
  items: number;
  workers: string;
  streams: number;
  api: LoadResult;
  /** The api's RSS before the streams, MB. */
  apiIdleMb: number;
  coldStartMs: number;
  coldStartCpuMs: number;
  raw: LoadResult | undefined;
  rawIdleMb: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const f = (x: number) => x.toFixed(1);

export function tableRow(run: RowRun): string {
  const { done, connected, after } = run.api;
  const rawAll = sorted(run.raw?.done.rounds.flatMap((r) => r.latenciesMs) ?? []);
  const rawRead = sorted(run.raw?.done.rounds.flatMap((r) => r.readLatenciesMs) ?? []);
  /** KB of RSS per open stream: (with streams − idle) / streams. */
  const perStream = (idleMb: number, withMb: number) => ((withMb - idleMb) * 1024) / run.streams;
  const all = sorted(done.rounds.flatMap((r) => r.latenciesMs));
  const read = sorted(done.rounds.flatMap((r) => r.readLatenciesMs));
  const missing = done.rounds.reduce((s, r) => s + r.missing, 0);
  const roundP99 = sorted(done.rounds.map((r) => percentile(sorted(r.latenciesMs), 99)));
  const put = sorted(done.rounds.map((r) => r.changeRequestMs));
  const warm = sorted(done.warmup.flatMap((r) => r.latenciesMs));
  const cells = [
    run.items,
    run.workers,
    run.streams,
    f(percentile(all, 50)),
    f(percentile(all, 99)),
    f(all.at(-1) ?? NaN),
    `${f(percentile(roundP99, 50))} (${f(roundP99[0]!)}–${f(roundP99.at(-1)!)})`,
    `${f(percentile(warm, 99))} / ${f(warm.at(-1) ?? NaN)} (${done.warmup.length})`,
    `${f(percentile(read, 50))} / ${f(percentile(read, 99))}`,
    f(percentile(put, 50)),
    missing,
    f(run.apiIdleMb),
    f(connected.now),
    f(after.peak),
    f(done.connectMs / 1000),
    f(done.cpuMs.connect),
    f(done.cpuMs.rounds / (done.rounds.length + done.warmup.length)),
    `${f(run.coldStartMs)} / ${f(run.coldStartCpuMs)}`,
    f(perStream(run.apiIdleMb, connected.now)),
    `${f(percentile(rawAll, 50))} / ${f(percentile(rawAll, 99))}`,
    `${f(percentile(rawRead, 50))} / ${f(percentile(rawRead, 99))}`,
    run.raw ? `${f(run.rawIdleMb)} / ${f(run.raw.connected.now)}` : '',
    run.raw ? f(perStream(run.rawIdleMb, run.raw.connected.now)) : '',
  ];
  return `| ${cells.join(' | ')} |`;
}

/** The machine, what was run, and what the columns mean. */
export function tableIntro(o: {
  streams: number[];
  rounds: string;
  warmup: string;
  warmupSeconds: string;
  pin: boolean;
}): string {
  return [
    '',
    `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}${o.pin ? '; pinned: server on CPU 0, load generator on CPU 1' : ''}`,
    `streams: ${o.streams.join(', ')}; rounds: ${o.rounds}, after a warm-up of at least ${o.warmup} rounds and ${o.warmupSeconds} s; latency = change request start → the change's bytes at the stream's socket (kernel receive timestamp), ms; read: the same, when the load generator's read returned them; raw fan-out: the same load generator against bench/stream/raw-fanout.ts, one process writing each change to every stream as the request arrives`,
  ].join('\n');
}
