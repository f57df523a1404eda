/**
 * What every bench script does around its measuring: its numeric arguments, the database it
 * runs the apps on (embedded SQLite unless DATABASE_URL), and the JSON it leaves in
 * bench/results/.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './processes.ts';

/** `--name N` from the command line, or `fallback`. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

/** The apps' environment for the database asked for: DATABASE_URL when set, else none (SQLite). */
export function databaseEnv(): Record<string, string> {
  return process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {};
}

/** The database the run measured, as the results files name it. */
export function databaseName(): 'postgresql' | 'sqlite' {
  return process.env.DATABASE_URL ? 'postgresql' : 'sqlite';
}

/** Writes `summary` to `bench/results/{name}.json`. */
export function writeResultsFile(name: string, summary: object): void {
  mkdirSync(join(repoRoot, 'bench/results'), { recursive: true });
  writeFileSync(
    join(repoRoot, `bench/results/${name}.json`),
    JSON.stringify(summary, null, 2) + '\n',
  );
}

/** Pins a running process (every thread) to CPU 0; wrk then runs on CPU 1 (`cpu: 1`). */
export function pinToCpu0(pid: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(pid)], { stdio: 'ignore' });
}
