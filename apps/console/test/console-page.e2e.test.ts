/**
 * The console page in real headless Chromium (Debian's, driven by playwright-core): a real
 * console process and a real api process over one temp SQLite DATA_DIR. What the operator does
 * in the page reaches the api's streams, read here as real SSE bytes.
 *
 * Chromium missing fails this file (never skips): `apt-get install -y chromium`
 * (`bash scripts/dev.sh test` does it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort, httpCall, tempDir, waitFor } from '@svc/testkit';
import { startOidcIssuer } from '@svc/testkit/identity';
import { openSse, type SseEvent, type SseStream } from './sse-stream.ts';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const TOKEN = 'console-page-admin-token-0123456789';
const P = '/api/workspaces/acme/projects/web';
const SLOW = 60_000;

let dataDir: string;
let consolePort: number;
let apiPort: number;
const processes: ChildProcess[] = [];
let browser: Browser | undefined;
let page: Page;
/** `METHOD /path?query` of every request the page made. */
const requests: string[] = [];
/** Script errors and CSP violations the page reported. */
const pageProblems: string[] = [];
let secretKey: string;
let publicKey: string;

/** Starts `apps/{app}/src/main.ts` as its own process and waits until it is ready. */
async function startProcess(app: 'console' | 'api', env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', `apps/${app}/src/main.ts`], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  processes.push(child);
  const port = Number(env.PORT ?? env.CONSOLE_PORT);
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}`);
    return (await httpCall(port, 'GET', '/readyz').catch(() => undefined))?.status === 200;
  }, 30_000);
}

async function stopProcess(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** The management API, for checks behind the page's back. */
async function admin(method: string, path: string) {
  const res = await httpCall(consolePort, method, path, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.json();
}

async function stream(key: string): Promise<SseStream> {
  const s = await openSse(apiPort, '/acme/v1/stream', { 'x-service-api-key': key });
  expect(s.status).toBe(200);
  expect((await s.next()).event).toBe('resync');
  return s;
}

const change = (e: SseEvent) => ({ event: e.event, ...JSON.parse(e.data) });
const changeOf = (key: string) => (e: SseEvent) =>
  e.event === 'change' && JSON.parse(e.data).key === key;

/** Fills a form's fields by name and submits it. */
async function submit(form: string, fields: Record<string, string | boolean> = {}) {
  for (const [name, value] of Object.entries(fields)) {
    const field = page.locator(`#${form} [name="${name}"]`);
    if (typeof value === 'boolean') await field.setChecked(value);
    else if ((await field.evaluate((el) => el.tagName)) === 'SELECT')
      await field.selectOption(value);
    else await field.fill(value);
  }
  await page.locator(`#${form} button[type="submit"]`).click();
}

const text = (selector: string) => page.locator(selector).innerText();
const rowOf = (body: string, hasText: string) => page.locator(`#${body} tr`, { hasText });
const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 50 });

const chromiumMissing = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is missing: apt-get install -y chromium (never playwright install)`;

// Without Chromium every test fails, on CI and locally alike: none is skipped.
beforeEach(() => {
  if (chromiumMissing) throw new Error(chromiumMissing);
});

beforeAll(async () => {
  if (chromiumMissing) return;
  dataDir = tempDir('svc-console-page-');
  [consolePort, apiPort] = [await freePort(), await freePort()];
  // One after the other: the first start creates the root key file that both then share.
  await startProcess('console', {
    CONSOLE_PORT: String(consolePort),
    CONSOLE_ADMIN_TOKEN: TOKEN,
    SEED_DEMO: 'false',
    // The identities test's stand-in issuer serves plain http on loopback.
    IDENTITY_ALLOW_HTTP: 'true',
  });
  await startProcess('api', { PORT: String(apiPort), IDENTITY_ALLOW_HTTP: 'true' });

  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  const consoleUrl = `http://127.0.0.1:${consolePort}`;
  const context = await browser.newContext({
    baseURL: consoleUrl,
    viewport: { width: 1280, height: 900 },
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: consoleUrl });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('dialog', (dialog) => void dialog.accept());
  page.on('request', (r) => {
    const url = new URL(r.url());
    requests.push(`${r.method()} ${url.pathname}${url.search}`);
  });
  page.on('pageerror', (error) => pageProblems.push(String(error)));
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) pageProblems.push(message.text());
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const child of processes) await stopProcess(child);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

describe('the console page', { timeout: SLOW }, () => {
  it('is served with a strict CSP, nosniff and revalidation, and carries no inline script', async () => {
    for (const [path, type] of [
      ['/', 'text/html'],
      ['/console.js', 'text/javascript'],
      ['/console.css', 'text/css'],
    ] as const) {
      const res = await httpCall(consolePort, 'GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers['content-type']).toContain(type);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('no-cache');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe');
    }
    const html = (await httpCall(consolePort, 'GET', '/')).text;
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\s(on[a-z]+|style)=/);
    const js = (await httpCall(consolePort, 'GET', '/console.js')).text;
    expect(js).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });

  it('serves every module of the page as JavaScript under the same CSP, none writing HTML', async () => {
    const pageDir = fileURLToPath(new URL('../src/page/', import.meta.url));
    const modules = readdirSync(pageDir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.js'))
      .map((f) => `/${f.split('\\').join('/')}`);
    expect(modules.length).toBeGreaterThan(5);
    for (const path of modules) {
      const res = await httpCall(consolePort, 'GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers['content-type'], path).toContain('text/javascript');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'");
      expect(res.text, path).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/,
      );
    }
  });

  it('says clearly when the admin token is wrong, and keeps a right one in this tab only', async () => {
    await page.goto('/');
    await submit('login-form', { token: 'wrong-token-0123456789' });
    await poll(() => text('#login-form .error')).toContain('admin token was not accepted (401)');
    expect(await page.locator('#app').isHidden()).toBe(true);
    expect(await page.evaluate('Object.keys(sessionStorage)')).toEqual([]);

    await submit('login-form', { token: TOKEN });
    await page.locator('#workspace-form').waitFor();
    expect(await page.locator('#login').isHidden()).toBe(true);
    expect(await page.evaluate('Object.values(sessionStorage)')).toEqual([TOKEN]);
    await page.reload();
    await page.locator('#workspace-rows td').first().waitFor();
    expect(await page.locator('#login').isHidden()).toBe(true);
    expect(page.url()).not.toContain(TOKEN);
    expect(requests.join('\n')).not.toContain(TOKEN);
  });

  it('creates a workspace, project, service and keys, showing each key once', async () => {
    await submit('workspace-form', { slug: 'acme', name: 'Acme' });
    await poll(() => text('#projects h2')).toBe('Projects of acme');
    await page.getByLabel('billing status of acme').selectOption('overdue');
    await poll(async () => (await admin('GET', '/api/workspaces/acme')).billing_status).toBe(
      'overdue',
    );
    await page.getByLabel('billing status of acme').selectOption('ok');
    await poll(async () => (await admin('GET', '/api/workspaces/acme')).billing_status).toBe('ok');

    await submit('project-form', { slug: 'web', name: 'Web shop' });
    await poll(() => text('#services h2')).toBe('Services of web');
    await page.getByLabel('AB Testing add-on of web').click();
    await poll(
      async () => (await admin('GET', '/api/workspaces/acme/projects'))[0].ab_testing,
    ).toBe(true);
    await submit('service-form', { slug: 'billing', name: 'Billing' });
    await rowOf('service-rows', 'billing').waitFor();

    const created: string[] = [];
    for (const kind of ['public', 'secret']) {
      await submit('key-form', { kind, name: `${kind} one` });
      await poll(() => text('#new-key-note')).toContain(`New ${kind} key`);
      const key = await text('#new-key-value');
      expect(key).toMatch(kind === 'public' ? /^svp_[0-9A-Za-z]{40}$/ : /^svs_[0-9A-Za-z]{40}$/);
      expect(created).not.toContain(key);
      created.push(key);
      await page.locator('#new-key-copy').click();
      await poll(() => text('#new-key-status')).toBe('Copied.');
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
      await page.locator('#new-key-done').click();
      expect(await page.locator('#new-key').isHidden()).toBe(true);
      await rowOf('key-rows', `${key.slice(0, 10)}…`).waitFor();
      expect(await page.content()).not.toContain(key);
    }
    [publicKey, secretKey] = created as [string, string];
    expect(await rowOf('key-rows', 'public one').innerText()).toContain('never');
  });

  it('creates workload identities with a form per method, shows their use, and deletes them', async () => {
    const issuer = await startOidcIssuer();
    try {
      // Only the chosen method's fieldset shows; its fields are the ones checked and sent.
      await page.locator('#identity-form [name="method"]').selectOption('aws');
      expect(await page.locator('#identity-form fieldset[data-method="aws"]').isVisible()).toBe(
        true,
      );
      expect(
        await page.locator('#identity-form fieldset[data-method="kubernetes"]').isHidden(),
      ).toBe(true);
      await submit('identity-form', {
        name: 'lambda',
        'aws.accounts': '123456789012, 210987654321',
        'aws.server_id': 'svc.test',
      });
      await rowOf('identity-rows', 'lambda').waitFor();

      // The server's refusal shows next to the field it names.
      await page.locator('#identity-form [name="method"]').selectOption('kubernetes');
      await submit('identity-form', {
        name: 'payments',
        'kubernetes.api_server': 'ftp://10.0.0.1',
        'kubernetes.namespaces': 'payments',
        'kubernetes.service_accounts': 'checkout',
      });
      await poll(() => text('#identity-form .error')).toContain('kubernetes.api_server');
      expect(
        await page
          .locator('#identity-form [name="kubernetes.api_server"]')
          .getAttribute('aria-invalid'),
      ).toBe('true');
      await submit('identity-form', {
        'kubernetes.api_server': 'https://10.0.0.1:443',
        'kubernetes.reviewer_token': 'reviewer-token-from-the-page',
        service: 'billing',
      });
      await rowOf('identity-rows', 'payments').waitFor();
      expect(
        await page.locator('#identity-form [name="kubernetes.reviewer_token"]').inputValue(),
      ).toBe('');

      await page.locator('#identity-form [name="method"]').selectOption('oidc');
      await submit('identity-form', {
        name: 'ci',
        ttl_s: '600',
        'oidc.issuer': issuer.issuer,
        'oidc.audiences': 'svc',
        'oidc.subject': 'repo:acme/*',
        'oidc.claims': 'repository_owner=acme',
      });
      await poll(() => text('#new-identity')).toContain('Identity ci created');
      const listed = await admin('GET', `${P}/identities`);
      expect(listed.map((i: any) => i.name).sort()).toEqual(['ci', 'lambda', 'payments']);
      const byName = Object.fromEntries(listed.map((i: any) => [i.name, i]));
      expect(byName.lambda.aws).toMatchObject({
        accounts: ['123456789012', '210987654321'],
        server_id: 'svc.test',
      });
      expect(byName.payments).toMatchObject({
        service: 'billing',
        kubernetes: { reviewer_token_set: true },
      });
      expect(byName.ci).toMatchObject({
        ttl_s: 600,
        oidc: { subject: 'repo:acme/*', claims: { repository_owner: 'acme' } },
      });
      expect(await page.content()).not.toContain('reviewer-token-from-the-page');
      expect(await rowOf('identity-rows', 'ci').innerText()).toContain('never');

      // A workload exchanges; the list then shows its use and live key.
      const minted = await httpCall(apiPort, 'POST', '/acme/v1/auth/token', {
        body: {
          identity_id: byName.ci.id,
          token: await issuer.sign({ sub: 'repo:acme/web', aud: 'svc', repository_owner: 'acme' }),
        },
      });
      expect(minted.status).toBe(200);
      const s = await stream(minted.json().key);
      // Choosing the project again reloads its panels.
      await page.locator('#project-rows').getByRole('button', { name: 'web' }).click();
      const cells = rowOf('identity-rows', 'ci').locator('td');
      await poll(() => cells.nth(6).innerText()).not.toBe('never');
      expect(await cells.nth(7).innerText()).toBe('1');

      // Deleting it revokes the key: its stream ends.
      await rowOf('identity-rows', 'ci').getByRole('button', { name: 'Delete' }).click();
      await poll(() => rowOf('identity-rows', 'ci').count()).toBe(0);
      await s.ended;
      for (const name of ['lambda', 'payments']) {
        await rowOf('identity-rows', name).getByRole('button', { name: 'Delete' }).click();
      }
      await poll(() => text('#identity-rows')).toContain('No workload identities yet.');
    } finally {
      await issuer.close();
    }
  });

  it('edits a config and toggles a flag, and the api stream carries each change', async () => {
    const s = await stream(secretKey);
    await submit('config-form', { key: 'ui.theme', value: '{"mode": "dark"}', is_public: true });
    expect(change(await s.next(changeOf('ui.theme')))).toMatchObject({
      event: 'change',
      kind: 'config',
      op: 'upsert',
      value: { mode: 'dark' },
    });
    await rowOf('config-rows', 'ui.theme').getByRole('button', { name: 'Edit' }).click();
    expect(await page.locator('#config-form [name="value"]').inputValue()).toBe(
      '{\n  "mode": "dark"\n}',
    );
    await submit('config-form', { value: '"light"' });
    expect(change(await s.next(changeOf('ui.theme')))).toMatchObject({ value: 'light' });
    await poll(() => rowOf('config-rows', 'ui.theme').innerText()).toContain('"light"');

    const rules = [
      { conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], result: true },
    ];
    await submit('flag-form', {
      key: 'checkout.v2',
      is_active: false,
      rollout_percentage: '25.5',
      salt: 'spring',
      rules: JSON.stringify(rules),
    });
    expect(change(await s.next(changeOf('checkout.v2')))).toMatchObject({
      kind: 'flag',
      value: false,
    });
    await page.getByLabel('checkout.v2 active').click();
    expect(change(await s.next(changeOf('checkout.v2')))).toMatchObject({
      kind: 'flag',
      value: true,
    });
    // The toggle sent the flag's targeting back unchanged.
    expect(await admin('GET', `${P}/flags`)).toEqual([
      expect.objectContaining({
        key: 'checkout.v2',
        is_active: true,
        rollout_percentage: 25.5,
        salt: 'spring',
        rules,
      }),
    ]);

    // A service scope writes to the service's own level.
    await page.locator('#scope').selectOption('billing');
    await poll(() => text('#config-rows')).toBe('No configs at service billing level.');
    await submit('config-form', { key: 'ui.theme', value: '"dark"' });
    await poll(async () => (await admin('GET', `${P}/services/billing/configs`))[0]?.value).toBe(
      'dark',
    );
    await page.locator('#scope').selectOption('');
    await poll(() => rowOf('config-rows', 'ui.theme').innerText()).toContain('"light"');
    s.close();
  });

  it('shows a bad JSON value or a bad key next to its form, sending nothing and losing nothing', async () => {
    const before = requests.length;
    await submit('config-form', { key: 'ui.banner', value: '{"text": ' });
    await poll(() => text('#config-form .error')).toContain('value: not valid JSON');
    expect(requests.slice(before).filter((r) => r.startsWith('PUT'))).toEqual([]);
    expect(await page.locator('#config-form [name="value"]').inputValue()).toBe('{"text": ');
    expect(await page.locator('#config-form [name="key"]').inputValue()).toBe('ui.banner');
    expect(await page.locator('#config-form [name="value"]').getAttribute('aria-invalid')).toBe(
      'true',
    );

    await submit('config-form', { key: 'bad key', value: '{"text": "hi"}' });
    await poll(() => text('#config-form .error')).toContain('key: must be');
    expect(await page.locator('#config-form [name="key"]').inputValue()).toBe('bad key');
    expect(await page.locator('#config-form [name="value"]').inputValue()).toBe('{"text": "hi"}');
    expect(await page.locator('#config-form [name="key"]').getAttribute('aria-invalid')).toBe(
      'true',
    );
    expect((await admin('GET', `${P}/configs`)).map((c: any) => c.key)).toEqual(['ui.theme']);

    await submit('flag-form', { key: 'search.beta', rules: '[{' });
    await poll(() => text('#flag-form .error')).toContain('rules: not valid JSON');
    await submit('workspace-form', { slug: 'Bad Slug!', name: 'Bad' });
    await poll(() => text('#workspace-form .error')).toContain('slug');
    // Each error stayed with its own form.
    expect(await page.locator('#secret-form .error').isHidden()).toBe(true);
    expect(await page.locator('#config-list .error').isHidden()).toBe(true);
    expect(requests.slice(before).filter((r) => r.startsWith('PUT'))).toEqual([
      'PUT /api/workspaces/acme/projects/web/configs/bad%20key',
    ]);
  });

  it('keeps secret values hidden until revealed, and deletes one version', async () => {
    await submit('secret-form', { key: 'db.password', value: 'hunter2-page-secret' });
    await poll(() => text('#secret-status')).toBe('db.password: version 1 saved.');
    await submit('secret-form', { key: 'db.password', value: 'hunter3-page-secret' });
    await poll(() => text('#secret-status')).toBe('db.password: version 2 saved.');
    const row = rowOf('secret-rows', 'db.password');
    await poll(() => row.innerText()).toContain('delete v2');
    expect(await row.innerText()).toContain('hidden');
    expect(await page.content()).not.toContain('hunter');

    await row.getByRole('button', { name: 'Reveal' }).click();
    await poll(() => row.innerText()).toContain('hunter3-page-secret');
    await row.getByRole('button', { name: 'Hide' }).click();
    expect(await page.content()).not.toContain('hunter');

    await row.getByRole('button', { name: 'delete v2' }).click();
    await poll(async () => (await admin('GET', `${P}/secrets`))[0]?.versions).toEqual([1]);
    await poll(() => row.innerText()).not.toContain('delete v2');
    await poll(() => text('#audit-rows')).toContain('secret.reveal');
    expect(await text('#audit-rows')).not.toContain('hunter');
  });

  it('revokes a key in the page, and its open stream closes', async () => {
    const s = await stream(publicKey);
    const row = rowOf('key-rows', `${publicKey.slice(0, 10)}…`);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await Promise.race([
      s.ended,
      new Promise((_, reject) => setTimeout(() => reject(new Error('stream still open')), 10_000)),
    ]);
    await poll(() => row.innerText()).toContain('revoked');
    await poll(() => text('#audit-rows')).toContain('key.revoke');
    const screenshot = process.env.CONSOLE_PAGE_SCREENSHOT;
    if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
    expect(pageProblems).toEqual([]);
  });
});
