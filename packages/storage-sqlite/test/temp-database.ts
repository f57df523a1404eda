import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh folder for one database file, removed by `remove()`. */
export function tempDatabase(): { file: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sqlite-'));
  return {
    file: path.join(dir, 'svc.db'),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
