/**
 * File secrets on local disk: one private folder per client (mode 0700) under the temp folder,
 * a sub-folder per secret, and the file itself with mode 0600. A file is written to a temporary
 * name and renamed into place, so a reader never sees half a secret; it is rewritten only when
 * the secret changed. The folder goes on `close()` and, failing that, when the process exits.
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceLogger } from './logger.ts';
import { jsonEqual, type SecretEntry } from './snapshot.ts';

interface Materialized {
  secret: SecretEntry;
  path: string;
}

/** Folders still on disk, removed when the process exits without `close()`. */
const liveFolders = new Set<string>();
let exitHookInstalled = false;

function removeOnExit(folder: string): void {
  liveFolders.add(folder);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const dir of liveFolders) rmSync(dir, { recursive: true, force: true });
  });
}

export class FileSecrets {
  private folder: string | undefined;
  private readonly files = new Map<string, Materialized>();

  constructor(
    private readonly parent: string | undefined,
    private readonly logger: ServiceLogger,
  ) {}

  /** The absolute path of the file written for `key`, when it is a file secret on disk. */
  pathOf(key: string): string | undefined {
    return this.files.get(key)?.path;
  }

  /** Brings the files in line with `secrets`: writes new and changed ones, removes the rest. */
  update(secrets: ReadonlyMap<string, SecretEntry>): void {
    for (const [key, file] of this.files) {
      const secret = secrets.get(key);
      if (secret === undefined || secret.type !== 'file') this.remove(key, file);
    }
    for (const [key, secret] of secrets) {
      if (secret.type !== 'file') continue;
      const current = this.files.get(key);
      if (current !== undefined && jsonEqual(current.secret, secret)) continue;
      try {
        this.write(key, secret, current);
      } catch (error) {
        this.logger.error(`writing the file for secret ${key} failed`, error);
      }
    }
  }

  /** Removes every file and the private folder. */
  close(): void {
    this.files.clear();
    if (this.folder === undefined) return;
    rmSync(this.folder, { recursive: true, force: true });
    liveFolders.delete(this.folder);
    this.folder = undefined;
  }

  private write(key: string, secret: SecretEntry, current: Materialized | undefined): void {
    const dir = join(this.privateFolder(), folderName(key));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, fileName(key, secret.fileName));
    const temp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, secret.value);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
    if (current !== undefined && current.path !== path) rmSync(current.path, { force: true });
    this.files.set(key, { secret, path });
    this.logger.debug(`wrote file secret ${key} version ${secret.version}`);
  }

  private remove(key: string, file: Materialized): void {
    this.files.delete(key);
    rmSync(join(file.path, '..'), { recursive: true, force: true });
    this.logger.debug(`removed file secret ${key}`);
  }

  private privateFolder(): string {
    if (this.folder === undefined) {
      const folder = mkdtempSync(join(this.parent ?? tmpdir(), 'service-client-'));
      chmodSync(folder, 0o700);
      removeOnExit(folder);
      this.folder = folder;
    }
    return this.folder;
  }
}

/** Secret keys are dot-separated `[A-Za-z0-9_-]` segments: safe as a folder name once `.`-free. */
function folderName(key: string): string {
  return encodeURIComponent(key).replace(/^\.+/, (dots) => '%2E'.repeat(dots.length));
}

/** The secret's `file_name` when it is a plain name, else the key. */
function fileName(key: string, wanted: string | undefined): string {
  if (wanted !== undefined && /^[^/\\\0]+$/.test(wanted) && wanted !== '.' && wanted !== '..') {
    return wanted.startsWith('.') && wanted.endsWith('.tmp') ? `_${wanted}` : wanted;
  }
  return folderName(key);
}
