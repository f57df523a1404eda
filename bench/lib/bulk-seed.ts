/**
 * Seeds a project with many items straight through the storage layer, in transactions of a few
 * thousand writes (the console's API takes one write per request: 100,000 of them would take
 * minutes). The same writes the console makes: each appends its change to the log and bumps the
 * project's revision, and secrets are sealed with the data folder's root key.
 */
import { secretContext } from '@svc/domain';
import { createSealer, loadSettings, openStorage } from '@svc/runtime';

/** Items added per transaction. */
const BATCH = 5000;

export interface BulkItems {
  /** The workspace and project (they must exist). */
  workspace: string;
  project: string;
  /** Item numbers to write, `from` inclusive to `to` exclusive (so seeding can grow in steps). */
  from: number;
  to: number;
}

/**
 * Writes items `from`..`to` of the bench shape: 60 % configs like `bench/sync`'s (a third
 * public), 30 % flags, 10 % text secrets. About 55 bytes of snapshot per item.
 */
export async function bulkSeed(env: Record<string, string | undefined>, items: BulkItems) {
  const settings = loadSettings({ ...env, LOG_LEVEL: 'silent' });
  const storage = await openStorage(settings);
  const { sealer } = createSealer(settings);
  try {
    const store = storage.store;
    const ws = await store.findWorkspaceBySlug(items.workspace);
    const project = ws && (await store.findProject(ws.id, items.project));
    if (!project) throw new Error(`no project ${items.workspace}/${items.project}`);
    const scope = { projectId: project.id, serviceId: null };
    for (let start = items.from; start < items.to; start += BATCH) {
      await store.transaction(async (tx) => {
        for (let n = start; n < Math.min(items.to, start + BATCH); n++) {
          const kind = n % 10;
          if (kind < 6) {
            await tx.putConfig(scope, {
              key: `service.setting_${n}`,
              valueJson: JSON.stringify({ enabled: n % 2 === 0, limit: n * 10, name: `s${n}` }),
              isPublic: n % 3 === 0,
            });
          } else if (kind < 9) {
            await tx.putFlag(scope, {
              key: `feature.flag_${n}`,
              isActive: n % 2 === 0,
              rules: [],
              rolloutPercentage: 100,
              salt: null,
            });
          } else {
            const secret = {
              key: `vendor.key_${n}`,
              version: 1,
              type: 'text' as const,
              fileName: null,
            };
            const sealed = sealer.seal(
              `sk_live_${n}_${'x'.repeat(16)}`,
              secretContext(scope, secret),
            );
            await tx.insertSecretVersion(scope, secret.key, { ...secret, sealed });
          }
        }
      });
    }
  } finally {
    await storage.store.close();
  }
  // SQLite wrote synchronously, holding this event loop: let it see the keep-alive sockets the
  // apps closed meanwhile before anything reuses them.
  await new Promise((resolve) => setTimeout(resolve, 50));
}
