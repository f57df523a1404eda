import { rmSync } from 'node:fs';
import { expect, it } from 'vitest';
import { startHarness } from './harness.ts';

it('records when a key was last used (written in batches, and on shutdown)', async () => {
  const h = await startHarness();
  try {
    await h.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
    await h.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
    const used = await h.createKey('web', 'secret');
    await h.createKey('web', 'public');
    const before = Date.now();
    await h.syncUntil(used, () => true);
    await h.api.close();
    const keys = (await h.admin('GET', '/workspaces/acme/projects/web/keys')).json();
    const usedRow = keys.find((k: { prefix: string }) => used.startsWith(k.prefix));
    const unusedRow = keys.find((k: { prefix: string }) => !used.startsWith(k.prefix));
    expect(Date.parse(usedRow.last_used_at)).toBeGreaterThanOrEqual(before - 5);
    expect(unusedRow.last_used_at).toBeNull();
  } finally {
    await h.console.close();
    rmSync(h.dataDir, { recursive: true, force: true });
  }
});
