/**
 * The Python client's half of bench/client (`run.ts --python`): bench/client/python_bench.py in
 * the Python client's venv (made by packages/client-python/scripts/run.py), against the same
 * apps and the same two projects as the TypeScript client, right after it.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot, type Apps } from '../lib/processes.ts';

interface Times {
  p50: number;
  p99: number;
  max: number;
}

export interface PythonResults {
  python: string;
  httpx: string;
  memory: {
    items: number;
    snapshotBytes: number;
    jsonLoadsMB: number;
    heapMB: number;
    retainedAfterCloseMB: number;
  };
  reads: Record<string, number>;
  createTimes: Record<string, { client: Times; bareGetAndJsonLoads: Times }>;
}

export function runPythonBench(
  apps: Apps,
  projects: { small: [string, string]; large: [string, string] },
  options: { items: number; creates: number },
): PythonResults {
  const out = execFileSync(
    'python3',
    [
      'packages/client-python/scripts/run.py',
      'python',
      join(repoRoot, 'bench/client/python_bench.py'),
      '--api',
      `http://127.0.0.1:${apps.apiPort}`,
      '--small',
      projects.small.join(':'),
      '--large',
      projects.large.join(':'),
      '--items',
      String(options.items),
      '--creates',
      String(options.creates),
    ],
    { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(out) as PythonResults;
}

export function printPython(results: PythonResults): void {
  console.log(`\nPython ${results.python} (httpx ${results.httpx})\n`);
  console.log('| read | ops/s |\n| --- | ---: |');
  for (const [name, ops] of Object.entries(results.reads))
    console.log(`| ${name} | ${(ops / 1e6).toFixed(2)} M |`);
  console.log(
    '\n| create() to ready | p50 ms | p99 ms | max ms | bare GET + json.loads p50 ms |\n| --- | ---: | ---: | ---: | ---: |',
  );
  for (const [name, { client, bareGetAndJsonLoads: bare }] of Object.entries(results.createTimes)) {
    console.log(
      `| ${name} | ${client.p50.toFixed(1)} | ${client.p99.toFixed(1)} | ${client.max.toFixed(1)} | ${bare.p50.toFixed(1)} |`,
    );
  }
  const m = results.memory;
  console.log(
    `\nmemory with ${m.items} items: Python heap +${m.heapMB.toFixed(1)} MB while open ` +
      `(json.loads of the snapshot alone: ${m.jsonLoadsMB.toFixed(1)} MB), ` +
      `${m.retainedAfterCloseMB.toFixed(1)} MB after close()`,
  );
}
