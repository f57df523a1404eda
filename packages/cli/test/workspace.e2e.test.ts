/**
 * `svc export`, `svc plan` and `svc apply` (the built dist/svc.mjs) against the live console:
 * export → apply on an empty workspace → export gives the same file; plan after apply is
 * empty; a changed file plans exactly its changes; --prune; secrets from the environment; a
 * refused write; a file that fails the schema.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { liveService } from './support/live.ts';

const live = liveService();
const dir = mkdtempSync(join(tmpdir(), 'svc-cli-files-'));
const SHOP = '/workspaces/src/projects/shop';
const env = live.consoleEnv;

/** Writes `text` to a file of the temp folder and returns its path. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Audited writes of a workspace (reveals are audited too, but are not writes). */
async function writes(ws: string): Promise<string[]> {
  const audit = (await live.admin('GET', `/workspaces/${ws}/audit?limit=1000`)).json() as {
    action: string;
    target: string;
  }[];
  return audit.filter((a) => a.action !== 'secret.reveal').map((a) => `${a.action} ${a.target}`);
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  await live.admin('POST', '/workspaces', { slug: 'src', name: 'Source' });
  await live.admin('POST', '/workspaces/src/projects', { slug: 'shop', name: 'Shop' });
  await live.admin('PATCH', SHOP, { ab_testing: true });
  await live.admin('POST', `${SHOP}/services`, { slug: 'checkout', name: 'Checkout' });
  await live.admin('POST', `${SHOP}/services`, { slug: 'idle', name: 'Idle' });
  await live.admin('POST', '/workspaces/src/projects', { slug: 'web', name: 'Web' });
  await live.admin('PUT', `${SHOP}/configs/ui.theme`, { value: 'dark', is_public: true });
  await live.admin('PUT', `${SHOP}/configs/db.pool`, { value: { max: 10, hosts: ['a', 'b'] } });
  await live.admin('PUT', `${SHOP}/configs/banner`, { value: 'line one\nline two' });
  await live.admin('PUT', `${SHOP}/flags/checkout.v2`, {
    is_active: true,
    rules: [
      {
        conditions: [{ attribute: 'country', operator: 'in', values: ['DE', 'AT'] }],
        result: true,
      },
    ],
    rollout_percentage: 25.5,
    salt: 'spring',
  });
  await live.admin('PUT', `${SHOP}/flags/search.beta`, { is_active: false });
  await live.admin('PUT', `${SHOP}/secrets/stripe.api_key`, { value: 'sk_live_export_1' });
  await live.admin('PUT', `${SHOP}/secrets/tls.cert`, {
    value: 'PEM-export',
    type: 'file',
    file_name: 'tls.pem',
  });
  await live.admin('PUT', `${SHOP}/services/checkout/configs/db.pool`, { value: { max: 40 } });
  await live.admin('PUT', `${SHOP}/services/checkout/flags/checkout.v2`, { is_active: false });
  await live.admin('PUT', '/workspaces/src/projects/web/configs/ui.theme', { value: 'light' });
});

describe('svc export', () => {
  it('writes the workspace as YAML that names the schema, secrets by name and type only', async () => {
    const result = await live.svc(['export', '--workspace', 'src'], { env, cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const first = result.stdout.split('\n')[0]!;
    const ref = /^# yaml-language-server: \$schema=(.+)$/.exec(first)![1]!;
    // The package's schema (here absolute: the temp folder and the repo share only the root).
    const schema = JSON.parse(readFileSync(resolve(dir, ref), 'utf8'));
    expect(schema.title).toBe('svc workspace file');
    expect(result.stdout).not.toContain('sk_live_export_1');
    expect(result.stdout).not.toContain('PEM-export');
    const doc = parseDocument(result.stdout).toJS();
    expect(doc.projects.shop.secrets).toEqual({
      'stripe.api_key': { type: 'text' },
      'tls.cert': { type: 'file', file_name: 'tls.pem' },
    });
    expect(doc.projects.shop.ab_testing).toBe(true);
    expect(doc.projects.shop.flags['checkout.v2']).toEqual({
      active: true,
      rules: [
        {
          conditions: [{ attribute: 'country', operator: 'in', values: ['DE', 'AT'] }],
          result: true,
        },
      ],
      rollout_percentage: 25.5,
      salt: 'spring',
    });
    expect(doc.projects.shop.services.idle).toEqual({ name: 'Idle' });
    expect(Object.keys(doc.projects)).toEqual(['shop', 'web']);
  });

  it('--project: that project only; -o: to a file, the schema path relative to it', async () => {
    const out = join(dir, 'nested-web.yaml');
    const result = await live.svc(['export', '--workspace', 'src', '--project', 'web', '-o', out], {
      env,
    });
    expect(result).toMatchObject({ code: 0, stdout: '' });
    const text = readFileSync(out, 'utf8');
    expect(Object.keys(parseDocument(text).toJS().projects)).toEqual(['web']);
    const ref = /\$schema=(.+)/.exec(text)![1]!;
    expect(JSON.parse(readFileSync(resolve(dir, ref), 'utf8')).title).toBe('svc workspace file');
  });

  it('an unknown workspace, a missing or wrong token, a bad console URL: errors, exit 1', async () => {
    const unknown = await live.svc(['export', '--workspace', 'nope'], { env });
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toContain('no workspace nope');
    const noToken = await live.svc(['export', '--workspace', 'src'], {
      env: { ...env, SVC_ADMIN_TOKEN: undefined },
    });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('SVC_ADMIN_TOKEN');
    const wrongToken = await live.svc(['export', '--workspace', 'src'], {
      env: { ...env, SVC_ADMIN_TOKEN: 'wrong-token-0123456789' },
    });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toContain('401 unauthorized');
    const noScheme = await live.svc(['export', '--workspace', 'src'], {
      env: { ...env, SVC_CONSOLE_URL: 'localhost:8081' },
    });
    expect(noScheme.code).toBe(1);
    expect(noScheme.stderr).toContain('the console URL is not an http(s) URL: localhost:8081');
  });
});

describe('svc apply and svc plan', () => {
  let exported = '';
  /** The export, with each secret's value taken from an environment variable. */
  let withSecrets = '';
  const secretEnv = { STRIPE_KEY: 'sk_live_export_1', TLS_CERT_PEM: 'PEM-export' };

  beforeAll(async () => {
    exported = (await live.svc(['export', '--workspace', 'src'], { env, cwd: dir })).stdout;
    const doc = parseDocument(exported);
    doc.setIn(['projects', 'shop', 'secrets', 'stripe.api_key', 'value_from_env'], 'STRIPE_KEY');
    doc.setIn(['projects', 'shop', 'secrets', 'tls.cert', 'value_from_env'], 'TLS_CERT_PEM');
    withSecrets = doc.toString();
  });

  it('export → apply on an empty workspace → export gives the same file', async () => {
    await live.admin('POST', '/workspaces', { slug: 'copy', name: 'Source' });
    const path = file('copy.yaml', withSecrets);
    const applied = await live.svc(['apply', '-f', path, '--workspace', 'copy', '--yes'], {
      env: { ...env, ...secretEnv },
      cwd: dir,
    });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Workspace copy: 14 to create, 0 to update, 0 to delete.');
    expect(applied.stdout).toContain('Applied 14 changes to workspace copy.');
    expect(applied.stdout).not.toContain('sk_live_export_1');
    const again = await live.svc(['export', '--workspace', 'copy'], { env, cwd: dir });
    expect(again.stdout).toBe(exported.replace('\nworkspace: src\n', '\nworkspace: copy\n'));
    // The secrets' values came across, through the management API (audited).
    const secrets = (await live.admin('GET', '/workspaces/copy/projects/shop/secrets?reveal=true'))
      .json()
      .map((s: any) => [s.key, s.value, s.version]);
    expect(secrets).toEqual([
      ['stripe.api_key', 'sk_live_export_1', 1],
      ['tls.cert', 'PEM-export', 1],
    ]);
    expect(await writes('copy')).toContain('config.put shop ui.theme');
  });

  it('plan after apply exits 0; a second apply changes nothing and says so', async () => {
    const path = file('copy.yaml', withSecrets);
    const before = await writes('copy');
    const options = { env: { ...env, ...secretEnv } };
    const plan = await live.svc(['plan', '-f', path, '--workspace', 'copy'], options);
    expect(plan).toMatchObject({ code: 0, stderr: '' });
    expect(plan.stdout).toContain('No changes: workspace copy matches the file.');
    const apply = await live.svc(['apply', '-f', path, '--workspace', 'copy', '--yes'], options);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Nothing to apply.');
    expect(await writes('copy')).toEqual(before);
  });

  it('apply creates a workspace that does not exist', async () => {
    const path = file('fresh.yaml', exported.replace('\nworkspace: src\n', '\nworkspace: fresh\n'));
    const noSecrets = path.replace('fresh.yaml', 'fresh-no-secrets.yaml');
    const doc = parseDocument(readFileSync(path, 'utf8'));
    doc.deleteIn(['projects', 'shop', 'secrets']);
    writeFileSync(noSecrets, doc.toString());
    const result = await live.svc(['apply', '-f', noSecrets, '--yes'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('+ workspace fresh');
    const workspace = (await live.admin('GET', '/workspaces/fresh')).json();
    expect(workspace.name).toBe('Source');
  });

  it('a changed file plans exactly its changes, secrets by name only', async () => {
    const doc = parseDocument(withSecrets);
    doc.setIn(['projects', 'shop', 'configs', 'db.pool', 'value', 'max'], 12);
    doc.setIn(['projects', 'shop', 'flags', 'checkout.v2', 'rollout_percentage'], 30);
    doc.setIn(['projects', 'shop', 'services', 'checkout', 'configs', 'new.key'], { value: 'n' });
    doc.deleteIn(['projects', 'web', 'configs', 'ui.theme']);
    const path = file('changed.yaml', doc.toString());
    const result = await live.svc(['plan', '-f', path, '--workspace', 'copy'], {
      env: { ...env, ...secretEnv, STRIPE_KEY: 'sk_live_rotated_2' },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe(
      [
        'Workspace copy: 1 to create, 3 to update, 0 to delete.',
        '',
        'shop:',
        '  ~ config db.pool',
        '      value.max: 10 → 12',
        '  ~ flag checkout.v2',
        '      rollout_percentage: 25.5 → 30',
        '  ~ secret stripe.api_key',
        '      new version: the value differs (value from $STRIPE_KEY)',
        'shop/checkout:',
        '  + config new.key',
        '      value: "n"',
        '',
        'Left as they are:',
        '  web: config ui.theme not in the file: kept (--prune deletes)',
        '',
      ].join('\n'),
    );
  });

  it('--prune deletes what the file leaves out; without it nothing is deleted', async () => {
    const doc = parseDocument(withSecrets);
    doc.deleteIn(['projects', 'web', 'configs', 'ui.theme']);
    doc.deleteIn(['projects', 'shop', 'flags', 'search.beta']);
    const path = file('pruned.yaml', doc.toString());
    const options = { env: { ...env, ...secretEnv } };
    const kept = await live.svc(['apply', '-f', path, '--workspace', 'copy', '--yes'], options);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain('Nothing to apply.');
    expect((await live.admin('GET', '/workspaces/copy/projects/web/configs')).json()).toHaveLength(
      1,
    );

    const pruned = await live.svc(
      ['apply', '-f', path, '--workspace', 'copy', '--prune', '--yes'],
      options,
    );
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain('0 to create, 0 to update, 2 to delete');
    expect(pruned.stdout).toContain('applied: - flag search.beta in shop');
    expect((await live.admin('GET', '/workspaces/copy/projects/web/configs')).json()).toEqual([]);
    const plan = await live.svc(['plan', '-f', path, '--workspace', 'copy', '--prune'], options);
    expect(plan.code).toBe(0);
  });

  it('stops at the first refused write with its problem detail, saying what was applied', async () => {
    const doc = parseDocument(
      'version: 1\nworkspace: copy\nprojects:\n  web:\n    configs:\n      a.first: { value: 1 }\n',
    );
    doc.setIn(['projects', 'web', 'configs', 'b.huge'], { value: 'x'.repeat(300 * 1024) });
    doc.setIn(['projects', 'web', 'configs', 'c.last'], { value: 3 });
    const result = await live.svc(['apply', '-f', file('refused.yaml', doc.toString()), '--yes'], {
      env,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('+ config b.huge in web was refused: PUT ');
    expect(result.stderr).toMatch(/413 payload_too_large: /);
    expect(result.stderr).toContain('Already applied (1 of 3):\n  + config a.first in web');
    const keys = (await live.admin('GET', '/workspaces/copy/projects/web/configs'))
      .json()
      .map((c: any) => c.key);
    expect(keys).toEqual(['a.first']);
  });

  it('without --yes and no terminal: refused, nothing applied', async () => {
    const path = file(
      'noyes.yaml',
      'version: 1\nworkspace: copy\nprojects:\n  web:\n    configs:\n      z: { value: 1 }\n',
    );
    const before = await writes('copy');
    const result = await live.svc(['apply', '-f', path], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('pass --yes');
    expect(await writes('copy')).toEqual(before);
  });

  it('a file that fails the schema is refused before any request, naming its path', async () => {
    const path = file(
      'bad.yaml',
      'version: 1\nworkspace: copy\nprojects:\n  shop:\n    flags:\n      checkout.v2:\n        active: true\n        rollout_percentage: 101\n',
    );
    // A console that does not exist: any request would fail with "did not answer".
    const nowhere = { SVC_CONSOLE_URL: 'http://127.0.0.1:9', SVC_ADMIN_TOKEN: 'x' };
    for (const command of [['plan'], ['apply', '--yes']]) {
      const result = await live.svc([...command, '-f', path], { env: nowhere });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `${path}:8: projects.shop.flags.checkout\\.v2.rollout_percentage: must be ≤ 100`,
      );
      expect(result.stderr).not.toContain('did not answer');
    }
  });
});
