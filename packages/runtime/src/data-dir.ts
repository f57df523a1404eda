/**
 * DATA_DIR kept private: SQLite holds private configs in plaintext, and the root key and admin
 * token files are secrets. The folder is 0700 and the files in it 0600, whether the apps create
 * them now or found them looser (an older version, a folder made by hand); what cannot be
 * tightened (another owner) is said in a warning, not ignored.
 */
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const DATA_DIR_MODE = 0o700;
export const DATA_FILE_MODE = 0o600;

/** Makes `dir` (and its files) private; `warn` hears what could not be made so. */
export function privateDataDir(dir: string, warn: (message: string) => void): void {
  mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE });
  tighten(dir, DATA_DIR_MODE, warn);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile()) tighten(join(dir, entry.name), DATA_FILE_MODE, warn);
  }
}

/**
 * Creates `file` empty with mode 0600 when it does not exist yet, so a database engine that
 * opens it next (SQLite gives its -wal and -shm files the database file's mode) keeps it private.
 */
export function createPrivateFile(file: string): void {
  closeSync(openSync(file, 'a', DATA_FILE_MODE));
}

function tighten(path: string, mode: number, warn: (message: string) => void): void {
  const current = statSync(path).mode & 0o777;
  if ((current & ~mode) === 0) return;
  try {
    chmodSync(path, mode);
  } catch (error) {
    warn(
      `${path} is mode ${current.toString(8)} and could not be made ${mode.toString(8)} ` +
        `(${(error as Error).message}): anyone who can read it can read private values`,
    );
  }
}
