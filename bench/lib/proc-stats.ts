/**
 * What Linux's /proc says of a process: the CPU time it has used and its resident memory. The
 * benches read them around a load to report CPU per request or per change, and memory per stream.
 */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

/** CPU time (user + system) a process has used so far, in ms (/proc counts 100 ticks a second). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident set size now and at its peak, in MB, of a process and its children. */
export function rssMb(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(/(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(field)) ?? '')?.[1]);
  const own = { now: kb('VmRSS:') / 1024, peak: kb('VmHWM:') / 1024 };
  // An api with API_WORKERS > 1 is a primary and its workers.
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number);
  for (const child of children) {
    const sub = rssMb(child);
    own.now += sub.now;
    own.peak += sub.peak;
  }
  return own;
}
