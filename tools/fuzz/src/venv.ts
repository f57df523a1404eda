/**
 * Schemathesis in a virtual environment of its own under tools/fuzz/.venv, made on first use and
 * kept between runs: it is rebuilt only when requirements.txt or the Python changes (pip's own
 * cache makes a rebuild quick). A lock folder keeps two runs from building it at once.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FUZZ_DIR = fileURLToPath(new URL('..', import.meta.url));
const VENV = join(FUZZ_DIR, '.venv');
const STAMP = join(VENV, '.svc-installed');
const LOCK = join(FUZZ_DIR, '.venv.lock');
const PYTHON = process.env.PYTHON ?? 'python3';
/** A lock older than this was left by a run that died. */
const STALE_LOCK_MS = 10 * 60_000;

/** The schemathesis executable, installing it first when needed. */
export async function ensureSchemathesis(): Promise<string> {
  const executable = join(VENV, 'bin', 'schemathesis');
  const stamp = wantedStamp();
  const ready = () => existsSync(executable) && readIfExists(STAMP) === stamp;
  if (ready()) return executable;
  await withLock(() => {
    if (ready()) return;
    rmSync(VENV, { recursive: true, force: true });
    run(PYTHON, ['-m', 'venv', VENV]);
    const pip = join(VENV, 'bin', 'pip');
    run(pip, ['install', '--quiet', '--disable-pip-version-check', '-r', 'requirements.txt']);
    writeFileSync(STAMP, stamp);
  });
  return executable;
}

function wantedStamp(): string {
  const python = execFileSync(PYTHON, ['--version'], { encoding: 'utf8' });
  return createHash('sha256')
    .update(readFileSync(join(FUZZ_DIR, 'requirements.txt')))
    .update(python)
    .digest('hex');
}

function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

function run(command: string, args: string[]): void {
  execFileSync(command, args, { cwd: FUZZ_DIR, stdio: ['ignore', 'inherit', 'inherit'] });
}

async function withLock(fn: () => void): Promise<void> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS)
        rmSync(LOCK, { force: true, recursive: true });
      else await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
