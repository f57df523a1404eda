import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerBeforeBody } from '@svc/testkit';
import { startTestConsole, type TestConsole } from './console-harness.ts';

let c: TestConsole;
beforeAll(async () => {
  c = await startTestConsole();
});
afterAll(() => c?.stop());

const loginFailures = async () =>
  (await c.call('GET', '/audit')).json().filter((e: any) => e.action === 'login.fail');

describe('management API authentication', () => {
  it('answers 401 before reading a body: malformed or oversized bodies do not matter', async () => {
    const notJson = await c.call('POST', '/workspaces', { rawBody: '{"slug": ' }, '');
    expect(notJson.status).toBe(401);
    expect(notJson.json()).toMatchObject({ code: 'unauthorized' });
    const huge = await c.call(
      'PUT',
      '/workspaces/acme/projects/web/configs/big',
      { rawBody: 'x'.repeat(1100 * 1024) },
      'wrong-token-0123456789',
    );
    expect(huge.status).toBe(401);
    const deep = await c.call(
      'PUT',
      '/workspaces/a/projects/b/configs/c',
      {
        rawBody: `{"value": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      },
      '',
    );
    expect(deep.status).toBe(401);
  });

  it('answers 401 while the body is still on its way', async () => {
    expect(await answerBeforeBody(c.app.port, 'POST', '/api/workspaces', {}, 512 * 1024)).toMatch(
      / 401 /,
    );
    expect(
      await answerBeforeBody(
        c.app.port,
        'PUT',
        '/api/workspaces/acme/projects/web/configs/x',
        { Authorization: 'Bearer wrong-token-0123456789' },
        512 * 1024,
      ),
    ).toMatch(/ 401 /);
  });

  it('audits a rejected token at once, and a flood of them as one row, not one each', async () => {
    // The earlier tests' rejections: the first was written at once, the rest are being counted.
    const first = await loginFailures();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ actor: 'unauthenticated', action: 'login.fail' });
    expect(first[0].target).toMatch(/^1 rejected bearer token \(1 missing\) from 127\.0\.0\.1 ×1$/);
    for (let i = 0; i < 200; i++) {
      expect((await c.call('GET', '/workspaces', {}, `wrong-token-${i}-0123456789`)).status).toBe(
        401,
      );
    }
    expect(await loginFailures()).toHaveLength(1);
    // A workspace's own audit log never shows them.
    expect(
      (await c.call('POST', '/workspaces', { body: { slug: 'acme', name: 'A' } })).status,
    ).toBe(201);
    const acme = (await c.call('GET', '/workspaces/acme/audit')).json();
    expect(acme.map((e: any) => e.action)).toEqual(['workspace.create']);
  });
});
