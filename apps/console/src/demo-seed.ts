/**
 * The demo workspace seeded on first start of the embedded default, so a newcomer has
 * something to sync at once. Its keys are kept in `DATA_DIR/demo-seed.json` (mode 0600) so that
 * `pnpm start` can print them on every start; it is a local demo convenience, and the database
 * itself holds only hashes.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Management } from '@svc/domain';

export const DEMO_SEED_FILE = 'demo-seed.json';

export interface DemoSeed {
  workspace: string;
  project: string;
  service: string;
  secretKey: string;
  publicKey: string;
  serviceSecretKey: string;
}

export function readDemoSeed(dataDir: string): DemoSeed | undefined {
  const file = join(dataDir, DEMO_SEED_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoSeed) : undefined;
}

/** Seeds the demo unless the marker exists or a workspace `demo` was made by hand. */
export async function seedDemo(
  management: Management,
  dataDir: string,
): Promise<DemoSeed | undefined> {
  const existing = readDemoSeed(dataDir);
  if (existing) return existing;
  if ((await management.workspaces.list()).some((w) => w.slug === 'demo')) return undefined;

  const m = management.as('demo-seed');
  await m.workspaces.create({ slug: 'demo', name: 'Demo workspace' });
  await m.projects.create('demo', { slug: 'shop', name: 'Shop' });
  await m.services.create('demo', 'shop', { slug: 'checkout', name: 'Checkout service' });
  await m.projects.update('demo', 'shop', { abTesting: true });
  const project = { workspace: 'demo', project: 'shop' };
  const checkout = { ...project, service: 'checkout' };

  await m.configs.put(project, 'ui.theme', { value: 'dark', isPublic: true });
  await m.configs.put(project, 'ui.banner', {
    value: { text: 'Free shipping this week', color: '#0a7' },
    isPublic: true,
  });
  await m.configs.put(project, 'db.pool', {
    value: { max: 10, idle_timeout_ms: 30000 },
    isPublic: false,
  });
  await m.configs.put(checkout, 'db.pool', {
    value: { max: 25, idle_timeout_ms: 30000 },
    isPublic: false,
  });
  await m.flags.put(project, 'checkout.v2', {
    isActive: true,
    rolloutPercentage: 25,
    salt: 'checkout-v2-2026',
  });
  await m.flags.put(project, 'search.beta', {
    isActive: true,
    rules: [
      {
        conditions: [{ attribute: 'plan', operator: 'in', values: ['pro', 'enterprise'] }],
        result: true,
      },
    ],
    rolloutPercentage: 0,
  });
  await m.flags.put(project, 'maintenance.mode', { isActive: false });
  await m.secrets.put(project, 'stripe.api_key', {
    value: 'sk_test_demo_4eC39HqLyjWDarjtT1zdp7dc',
  });
  await m.secrets.put(checkout, 'payments.webhook_secret', { value: 'whsec_demo_5f8a1c' });
  await m.secrets.put(project, 'tls.cert', {
    value: '-----BEGIN CERTIFICATE-----\nMIIBdemo\n-----END CERTIFICATE-----\n',
    type: 'file',
    fileName: 'tls.pem',
  });

  const seed: DemoSeed = {
    workspace: 'demo',
    project: 'shop',
    service: 'checkout',
    secretKey: (await m.keys.create('demo', 'shop', { kind: 'secret', name: 'demo backend' })).key,
    publicKey: (await m.keys.create('demo', 'shop', { kind: 'public', name: 'demo browser' })).key,
    serviceSecretKey: (
      await m.keys.create('demo', 'shop', {
        kind: 'secret',
        service: 'checkout',
        name: 'demo checkout',
      })
    ).key,
  };
  writeFileSync(join(dataDir, DEMO_SEED_FILE), JSON.stringify(seed, null, 2) + '\n', {
    mode: 0o600,
  });
  return seed;
}
