import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, openStorage } from '../src/index.ts';

const tempDir = () => mkdtempSync(join(tmpdir(), 'svc-data-dir-'));

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Opens the SQLite store in `dir`, writes once (so the WAL exists) and closes it. */
async function openAndWrite(dir: string, warnings: string[] = []) {
  const storage = await openStorage(loadSettings({ DATA_DIR: dir }), {
    onInsecureFile: (m) => warnings.push(m),
  });
  await storage.store.transaction((tx) =>
    tx.insertWorkspace({ slug: `w${Date.now()}`, name: 'W' }),
  );
  const files = readdirSync(dir);
  const modes = Object.fromEntries(files.map((f) => [f, modeOf(join(dir, f))]));
  await storage.store.close();
  return { modes, warnings };
}

describe('DATA_DIR is private', () => {
  it('creates the folder 0700 and the database, its WAL and shared memory 0600', async () => {
    const dir = join(tempDir(), 'data');
    const { modes } = await openAndWrite(dir);
    expect(modeOf(dir)).toBe('700');
    expect(modes['svc.sqlite']).toBe('600');
    expect(modes['svc.sqlite-wal']).toBe('600');
    expect(modes['svc.sqlite-shm']).toBe('600');
    expect(Object.values(modes).every((m) => m === '600')).toBe(true);
  });

  it('tightens a folder and files it finds looser, as an older version left them', async () => {
    const dir = join(tempDir(), 'data');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'notes.txt'), 'x', { mode: 0o644 });
    await openAndWrite(dir);
    chmodSync(join(dir, 'svc.sqlite'), 0o644);
    chmodSync(dir, 0o755);
    const { modes, warnings } = await openAndWrite(dir);
    expect(modeOf(dir)).toBe('700');
    expect(modes).toMatchObject({ 'svc.sqlite': '600', 'notes.txt': '600' });
    expect(warnings).toEqual([]);
  });
});
