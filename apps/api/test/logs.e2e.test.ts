import { afterAll, beforeAll, expect, it } from 'vitest';
import { httpCall, startHarness, type Harness } from './harness.ts';

const logs: string[] = [];
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ LOG_LEVEL: 'trace' }, { logs });
});
afterAll(() => h?.stop());

it('never writes a secret value, an API key or the admin token to a log line', async () => {
  const values = ['log-secret-alpha-3391', 'log-secret-beta-7710', 'log-secret-gamma-0215'];
  await h.admin('POST', '/workspaces', { slug: 'acme', name: 'Acme' });
  await h.admin('POST', '/workspaces/acme/projects', { slug: 'web', name: 'Web' });
  await h.admin('PUT', '/workspaces/acme/projects/web/secrets/one', { value: values[0] });
  await h.admin('PUT', '/workspaces/acme/projects/web/secrets/bad%20key', { value: values[0] }); // 400
  await h.admin('GET', '/workspaces/acme/projects/web/secrets?reveal=true');
  const sk = await h.createKey('web', 'secret');
  await h.syncUntil(sk, () => true);
  const put = (key: string, body: unknown) =>
    httpCall(h.api.port, 'PUT', `/acme/v1/secrets/${key}`, {
      headers: { 'x-service-api-key': sk },
      body,
    });
  expect((await put('two', { value: values[1] })).status).toBe(201);
  expect((await put('two', { value: values[2], expected_version: 7 })).status).toBe(409);
  expect((await put('two', { value: values[2], extra: 1 })).status).toBe(400);
  await httpCall(h.api.port, 'GET', '/acme/v1/sync', { headers: { 'x-service-api-key': sk } });

  const text = logs.join('');
  expect(logs.length).toBeGreaterThan(5); // logging is really on
  expect(text).toContain('"url":"/api/workspaces"');
  for (const secret of [...values, sk, sk.slice(4), h.settings.CONSOLE_ADMIN_TOKEN!]) {
    expect(text.includes(secret), secret.slice(0, 10)).toBe(false);
  }
});
