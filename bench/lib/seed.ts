import { httpCall } from '@svc/testkit';
import type { Apps } from './processes.ts';

/** A workspace `bench`, project `app`, and a secret key the api already serves. */
export async function seedBenchProject(
  apps: Apps,
  fill: (p: string) => Promise<void>,
): Promise<string> {
  const p = '/workspaces/bench/projects/app';
  await apps.admin('POST', '/workspaces', { slug: 'bench', name: 'Bench' });
  await apps.admin('POST', '/workspaces/bench/projects', { slug: 'app', name: 'App' });
  await fill(p);
  const key = (await apps.admin('POST', `${p}/keys`, { kind: 'secret' })).json().key as string;
  const deadline = Date.now() + 10_000;
  while (
    (
      await httpCall(apps.apiPort, 'GET', '/bench/v1/sync', {
        headers: { 'x-service-api-key': key },
      })
    ).status !== 200
  ) {
    if (Date.now() > deadline) throw new Error('the api never served the bench key');
    await new Promise((r) => setTimeout(r, 10));
  }
  return key;
}

export function median<T>(values: T[], by: (v: T) => number): T {
  return [...values].sort((a, b) => by(a) - by(b))[Math.floor(values.length / 2)]!;
}

/** The sync benches' snapshot: 100 configs, 50 flags, 20 secrets (12,670 bytes for a secret key). */
export async function fillSyncSnapshot(apps: Apps, p: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    await apps.admin('PUT', `${p}/configs/service.setting_${i}`, {
      value: { enabled: i % 2 === 0, limit: i * 10, name: `setting number ${i}`, tags: ['a', 'b'] },
      is_public: i % 3 === 0,
    });
  }
  for (let i = 0; i < 50; i++)
    await apps.admin('PUT', `${p}/flags/feature.flag_${i}`, { is_active: i % 2 === 0 });
  for (let i = 0; i < 20; i++) {
    await apps.admin('PUT', `${p}/secrets/vendor.api_key_${i}`, {
      value: `sk_live_${'x'.repeat(32)}_${i}`,
    });
  }
}

/**
 * The project evaluate-ab and OpenFeature are measured on: the AB add-on on, 10 flags of 3 rules
 * each and a partial rollout (so every evaluation runs rules and a bucket), and 100 configs.
 */
export async function seedEvaluationProject(apps: Apps): Promise<{ flags: string[]; key: string }> {
  const flags = Array.from({ length: 10 }, (_, i) => `exp.flag_${i}`);
  const key = await seedBenchProject(apps, async (p) => {
    await apps.admin('PATCH', p, { ab_testing: true });
    for (const [i, flag] of flags.entries()) {
      await apps.admin('PUT', `${p}/flags/${flag}`, {
        is_active: true,
        rollout_percentage: 10 * (i + 1) - 0.5,
        rules: [
          {
            conditions: [{ attribute: 'country', operator: 'in', values: ['FR', 'IT', 'ES'] }],
            result: false,
          },
          {
            conditions: [
              { attribute: 'plan', operator: 'eq', values: ['enterprise'] },
              { attribute: 'email', operator: 'ends_with', values: ['@acme.com'] },
            ],
            result: true,
          },
          {
            conditions: [{ attribute: 'app_version', operator: 'semver_lt', values: ['2.0.0'] }],
            result: false,
          },
        ],
      });
    }
    for (let i = 0; i < 100; i++)
      await apps.admin('PUT', `${p}/configs/setting_${i}`, { value: { n: i, on: true } });
  });
  return { flags, key };
}
