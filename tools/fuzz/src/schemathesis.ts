/**
 * One schemathesis run against a live app: every check on (schemathesis's default; `--checks`
 * is not given, as it would override a target's per-operation settings), a bounded number of
 * examples per operation, a fixed seed unless FUZZ_SEED says otherwise (so a run is
 * reproducible and CI is not flaky; FUZZ_SEED=random explores). The exit status says whether
 * any check failed.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Fixture } from './fixture.ts';
import type { FuzzTarget } from './targets.ts';
import { ensureSchemathesis, FUZZ_DIR } from './venv.ts';

export const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 30);
const ROOT = join(FUZZ_DIR, '..', '..');

export interface FuzzResult {
  ok: boolean;
  /** What schemathesis printed: the findings with a curl line to replay each. */
  output: string;
  /** JUnit report of the run. */
  report: string;
  /** Schemathesis's count of test cases: `1975 generated, 1975 passed, 68 skipped`. */
  cases: string;
  /** How many of the spec's links the stateful phase followed: `9 covered / 13 selected / …`. */
  links: string;
}

export async function fuzz(
  target: FuzzTarget,
  fixture: Fixture,
  label: string,
): Promise<FuzzResult> {
  const schemathesis = await ensureSchemathesis();
  const reports = join(FUZZ_DIR, 'reports');
  mkdirSync(reports, { recursive: true });
  const report = join(reports, `${label}.xml`);
  const seed = process.env.FUZZ_SEED ?? '20261123';
  const args = [
    ...(target.config ? ['--config-file', join(FUZZ_DIR, 'targets', target.config)] : []),
    'run',
    join(ROOT, target.spec),
    '--url',
    await target.url(fixture),
    ...(target.args ?? []),
    ...Object.entries(target.headers(fixture)).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
    '--max-examples',
    String(MAX_EXAMPLES),
    ...(seed === 'random' ? [] : ['--seed', seed]),
    '--phases',
    (target.phases ?? ['examples', 'coverage', 'fuzzing']).join(','),
    // One worker: two threads of CPython 3.11 parsing source at once (hypothesis describing a
    // filter) can fail with "AST constructor recursion depth mismatch" (CPython gh-106905).
    '--workers',
    '1',
    '--generation-database',
    'none',
    '--report',
    'junit',
    '--report-junit-path',
    report,
    '--no-color',
  ];
  const child = spawn(schemathesis, args, { cwd: FUZZ_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const cases = /Test cases:\s+([^\n]+)/.exec(output)?.[1]?.trim() ?? 'no test cases';
  const links = /API Links:\s+([^\n]+)/.exec(output)?.[1]?.trim() ?? 'no links';
  return { ok: code === 0, output, report, cases, links };
}
