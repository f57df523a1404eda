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
