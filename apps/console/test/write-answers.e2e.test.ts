import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestConsole, type TestConsole } from './console-harness.ts';

let c: TestConsole;
const P = '/workspaces/acme/projects/web';
beforeAll(async () => {
  c = await startTestConsole();
  await c.call('POST', '/workspaces', { body: { slug: 'acme', name: 'Acme' } });
  await c.call('POST', '/workspaces/acme/projects', { body: { slug: 'web', name: 'Web' } });
  await c.call('POST', `${P}/services`, { body: { slug: 'api', name: 'API' } });
});
afterAll(() => c?.stop());

const projectRevision = async () =>
  (await c.call('GET', '/workspaces/acme/projects')).json()[0].revision as number;

describe('write answers', () => {
  it("carry the change's revision: in the body where there is one, else in X-Revision", async () => {
    const start = await projectRevision();
    const config = await c.call('PUT', `${P}/configs/ui.theme`, { body: { value: 'dark' } });
    expect(config.json().revision).toBe(start + 1);
    const flag = await c.call('PUT', `${P}/services/api/flags/beta`, { body: { is_active: true } });
    expect(flag.json().revision).toBe(start + 2);
    const secret = await c.call('PUT', `${P}/secrets/token`, { body: { value: 's3cret-value' } });
    expect(secret.status).toBe(201);
    expect(secret.json()).toEqual({ key: 'token', version: 1, type: 'text', revision: start + 3 });
    await c.call('PUT', `${P}/secrets/token`, { body: { value: 's3cret-value-2' } });

    const deletes: Array<[string, number]> = [
      [`${P}/secrets/token/versions/1`, start + 5],
      [`${P}/secrets/token`, start + 6],
      [`${P}/services/api/flags/beta`, start + 7],
      [`${P}/configs/ui.theme`, start + 8],
    ];
    for (const [path, revision] of deletes) {
      const res = await c.call('DELETE', path);
      expect(res.status, path).toBe(204);
      expect(res.headers['x-revision'], path).toBe(String(revision));
    }
    expect(await projectRevision()).toBe(start + 8);
  });

  it('are never stored by a cache nor sniffed: no-store and nosniff on every answer', async () => {
    await c.call('PUT', `${P}/secrets/db.password`, { body: { value: 'hunter2-secret' } });
    const revealed = await c.call('GET', `${P}/secrets?reveal=true`);
    expect(revealed.json()[0].value).toBe('hunter2-secret');
    expect(revealed.headers['cache-control']).toBe('no-store');
    const key = await c.call('POST', `${P}/keys`, { body: { kind: 'secret' } });
    expect(key.headers['cache-control']).toBe('no-store');
    for (const res of [
      revealed,
      key,
      await c.call('GET', '/workspaces'),
      await c.call('GET', '/workspaces', {}, ''),
      await c.call('GET', '/workspaces/nope'),
    ]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });
});
