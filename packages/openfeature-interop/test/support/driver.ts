/**
 * Runs a driver in another language: the scenario's cases go in as JSON on stdin, the outcomes
 * come back as JSON on stdout. Its stderr is kept for the failure message.
 */
import { spawn } from 'node:child_process';
import type { Outcome, Scenario } from './scenario.ts';

export interface DriverRun {
  command: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

export function runDriver(run: DriverRun, scenario: Scenario): Promise<Outcome[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(run.command, run.args, {
      cwd: run.cwd,
      env: { ...process.env, ...run.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString();
      if (code !== 0) {
        reject(new Error(`${run.command} exited with ${code}:\n${Buffer.concat(err).toString()}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout) as Outcome[]);
      } catch {
        reject(new Error(`not JSON from ${run.command}: ${stdout.slice(0, 500)}`));
      }
    });
    child.stdin.end(JSON.stringify({ baseUrl: scenario.baseUrl, cases: scenario.cases }));
  });
}

/** Runs `command` to completion; rejects with its output when it fails. */
export function exec(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs = 300_000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(
          new Error(`${command} ${args.join(' ')} failed (${code}):\n${Buffer.concat(output)}`),
        );
    });
  });
}
