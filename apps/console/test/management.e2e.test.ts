import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, loadSettings } from '@svc/runtime';
import { httpCall, tempDir } from '@svc/testkit';
import { startConsole, type ConsoleApp } from '../src/index.ts';

const TOKEN = 'console-test-token-0123456789';
let app: ConsoleApp;
let dataDir: string;

const call = (method: string, path: string, body?: unknown, token = TOKEN) =>
  httpCall(app.port, method, `/api${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body,
  });

beforeAll(async () => {
  dataDir = tempDir('svc-console-');
  const settings = loadSettings({
    DATA_DIR: dataDir,
    CONSOLE_PORT: '0',
    HOST: '127.0.0.1',
    CONSOLE_ADMIN_TOKEN: TOKEN,
  });
  app = await startConsole(settings, createLogger({ name: 'test', level: 'silent' }), {
    seedDemo: false,
  });
  expect((await call('POST', '/workspaces', { slug: 'acme', name: 'Acme' })).status).toBe(201);
  expect(
    (await call('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' })).status,
  ).toBe(201);
  expect(
    (await call('POST', '/workspaces/acme/projects/web/services', { slug: 'api', name: 'API' }))
      .status,
  ).toBe(201);
});

afterAll(async () => {
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('management API', () => {
  it('requires the bearer token', async () => {
    expect((await call('GET', '/workspaces', undefined, '')).status).toBe(401);
    const wrong = await call('GET', '/workspaces', undefined, 'wrong-token-0123456789');
    expect(wrong.status).toBe(401);
    expect(wrong.headers['content-type']).toBe('application/problem+json');
    expect(wrong.json()).toMatchObject({ code: 'unauthorized' });
  });

  it('names the failing field of a bad body with 400 problem+json', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/workspaces', { slug: 'Bad Slug!', name: 'x' }, 'slug'],
      ['POST', '/workspaces', { slug: 'fine' }, 'name'],
      ['POST', '/workspaces', { slug: 'fine', name: 'x', extra: 1 }, 'extra'],
      ['PATCH', '/workspaces/acme', { billing_status: 'late' }, 'billing_status'],
      ['PATCH', '/workspaces/acme/projects/web', { ab_testing: 'yes' }, 'ab_testing'],
      ['POST', '/workspaces/acme/projects/web/keys', { kind: 'admin' }, 'kind'],
      ['PUT', '/workspaces/acme/projects/web/configs/ok.key', { is_public: true }, 'value'],
      ['PUT', '/workspaces/acme/projects/web/configs/bad%20key', { value: 1 }, 'key'],
      ['PUT', '/workspaces/acme/projects/web/flags/f', { is_active: 'true' }, 'is_active'],
      [
        'PUT',
        '/workspaces/acme/projects/web/flags/f',
        { is_active: true, rollout_percentage: 12.345 },
        'rollout_percentage',
      ],
      [
        'PUT',
        '/workspaces/acme/projects/web/flags/f',
        {
          is_active: true,
          rules: [
            { conditions: [{ attribute: 'plan', operator: 'like', values: ['x'] }], result: true },
          ],
        },
        'rules[0].conditions[0].operator',
      ],
      ['PUT', '/workspaces/acme/projects/web/secrets/s', { value: 42 }, 'value'],
      [
        'PUT',
        '/workspaces/acme/projects/web/secrets/s',
        { value: 'x', type: 'text', file_name: 'a.pem' },
        'file_name',
      ],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(res.json(), path).toMatchObject({ code: 'invalid_request', field });
      expect(res.json().detail).toContain(field);
    }
    const notJson = await httpCall(app.port, 'POST', '/api/workspaces', {
      headers: { authorization: `Bearer ${TOKEN}` },
      rawBody: '{"slug": ',
    });
    expect(notJson.status).toBe(400);
    expect(notJson.json()).toMatchObject({ field: 'body' });
  });

  it('answers 413 to a body over 1 MiB and to a config over 256 KiB', async () => {
    const huge = await call('PUT', '/workspaces/acme/projects/web/configs/big', {
      value: 'x'.repeat(1024 * 1024 + 10),
    });
    expect(huge.status).toBe(413);
    expect(huge.json().code).toBe('payload_too_large');
    const big = await call('PUT', '/workspaces/acme/projects/web/configs/big', {
      value: 'x'.repeat(300 * 1024),
    });
    expect(big.status).toBe(413);
  });

  it('answers 409 to an existing slug and 404 to unknown parents', async () => {
    expect(
      (await call('POST', '/workspaces', { slug: 'acme', name: 'Again' })).json(),
    ).toMatchObject({ status: 409, code: 'conflict' });
    expect(
      (await call('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Again' })).status,
    ).toBe(409);
    expect(
      (await call('POST', '/workspaces/nope/projects', { slug: 'web', name: 'W' })).status,
    ).toBe(404);
    expect((await call('GET', '/workspaces/acme/projects/nope/configs')).status).toBe(404);
    expect((await call('DELETE', '/workspaces/acme/projects/web/configs/never.set')).status).toBe(
      404,
    );
  });

  it('shows a key once, lists keys without it, and revokes', async () => {
    const created = await call('POST', '/workspaces/acme/projects/web/keys', {
      kind: 'public',
      service: 'api',
      name: 'browser',
    });
    expect(created.status).toBe(201);
    const { id, key, kind, service } = created.json();
    expect(key).toMatch(/^svp_[0-9A-Za-z]{40}$/);
    expect({ kind, service }).toEqual({ kind: 'public', service: 'api' });
    const list = await call('GET', '/workspaces/acme/projects/web/keys');
    expect(list.text).not.toContain(key);
    expect(list.json().find((k: { id: string }) => k.id === id)).toMatchObject({
      name: 'browser',
      prefix: key.slice(0, 10),
      service: 'api',
      revoked_at: null,
      last_used_at: null,
      created_at: expect.any(String),
    });
    expect((await call('DELETE', `/workspaces/acme/projects/web/keys/${id}`)).status).toBe(204);
    expect(
      (await call('GET', '/workspaces/acme/projects/web/keys'))
        .json()
        .find((k: { id: string }) => k.id === id).revoked_at,
    ).toEqual(expect.any(String));
    expect((await call('DELETE', `/workspaces/acme/projects/web/keys/${id}`)).status).toBe(404);
  });

  it('edits configs, flags and secrets at both levels, revealing secrets only on request', async () => {
    const p = '/workspaces/acme/projects/web';
    expect(
      (
        await call('PUT', `${p}/configs/ui.theme`, { value: { mode: 'dark' }, is_public: true })
      ).json(),
    ).toMatchObject({
      key: 'ui.theme',
      value: { mode: 'dark' },
      is_public: true,
    });
    const flag = await call('PUT', `${p}/services/api/flags/beta`, {
      is_active: true,
      rollout_percentage: 12.5,
      salt: 's1',
      rules: [
        { conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], result: true },
      ],
    });
    expect(flag.status).toBe(200);
    expect((await call('GET', `${p}/services/api/flags`)).json()).toEqual([
      expect.objectContaining({
        key: 'beta',
        is_active: true,
        rollout_percentage: 12.5,
        salt: 's1',
      }),
    ]);
    expect((await call('GET', `${p}/flags`)).json()).toEqual([]);

    const first = await call('PUT', `${p}/secrets/db.password`, { value: 'hunter2-secret' });
    expect(first.status).toBe(201);
    // v1.1: every write answers with its change's revision.
    expect(first.json()).toEqual({
      key: 'db.password',
      version: 1,
      type: 'text',
      revision: expect.any(Number),
    });
    const second = await call('PUT', `${p}/secrets/db.password`, { value: 'hunter3-secret' });
    expect(second.status).toBe(200);
    expect(second.json().version).toBe(2);
    const hidden = await call('GET', `${p}/secrets`);
    expect(hidden.text).not.toContain('hunter');
    expect(hidden.json()).toEqual([
      { key: 'db.password', version: 2, type: 'text', versions: [1, 2] },
    ]);
    const revealed = await call('GET', `${p}/secrets?reveal=true`);
    expect(revealed.json()[0].value).toBe('hunter3-secret');

    expect((await call('DELETE', `${p}/secrets/db.password/versions/2`)).status).toBe(204);
    expect((await call('GET', `${p}/secrets?reveal=true`)).json()[0]).toMatchObject({
      version: 1,
      value: 'hunter2-secret',
    });
    expect((await call('DELETE', `${p}/secrets/db.password/versions/7`)).json().code).toBe(
      'version_not_found',
    );
    expect((await call('PUT', `${p}/secrets/db.password`, { value: 'again' })).json().version).toBe(
      3,
    );
    expect((await call('DELETE', `${p}/secrets/db.password`)).status).toBe(204);
    expect((await call('DELETE', `${p}/secrets/db.password`)).json().code).toBe('secret_not_found');
    expect(
      (await call('PUT', `${p}/secrets/db.password`, { value: 'fresh' })).json(),
    ).toMatchObject({ version: 4 });
  });

  it('keeps an audit trail without secret values', async () => {
    const audit = await call('GET', '/workspaces/acme/audit');
    expect(audit.status).toBe(200);
    const entries = audit.json();
    expect(entries.length).toBeGreaterThan(5);
    expect(entries[0]).toEqual({
      at: expect.any(String),
      actor: 'admin',
      action: expect.any(String),
      target: expect.any(String),
    });
    expect(entries.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['secret.put', 'key.revoke', 'secret.reveal']),
    );
    expect(audit.text).not.toContain('hunter');
    expect(Date.parse(entries[0].at)).toBeGreaterThanOrEqual(Date.parse(entries.at(-1).at));
  });

  it('sets billing status and the AB add-on', async () => {
    expect(
      (await call('PATCH', '/workspaces/acme', { billing_status: 'overdue' })).json()
        .billing_status,
    ).toBe('overdue');
    expect(
      (await call('PATCH', '/workspaces/acme/projects/web', { ab_testing: true })).json()
        .ab_testing,
    ).toBe(true);
  });
});
