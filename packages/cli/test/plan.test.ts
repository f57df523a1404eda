/** planWorkspace: what apply would do, from a file and the workspace as it is (no I/O here). */
import { describe, expect, it } from 'vitest';
import { changeLine, type Plan } from '../src/plan/change.ts';
import { planWorkspace } from '../src/plan/plan-workspace.ts';
import { renderPlan } from '../src/plan/render-plan.ts';
import { parseWorkspaceFile } from '../src/workspace-file/read-file.ts';
import type { CurrentWorkspace } from '../src/workspace/read-workspace.ts';

const file = (yaml: string) => parseWorkspaceFile(`version: 1\nworkspace: acme\n${yaml}`, 'f.yaml');

function current(yaml: string, secretValues: Record<string, string> = {}): CurrentWorkspace {
  return { state: file(yaml), secretValues: new Map(Object.entries(secretValues)) };
}

const CURRENT = `name: Acme
projects:
  shop:
    name: Shop
    configs:
      ui.theme: { value: dark, public: true }
      db.pool: { value: { max: 10, hosts: [a] } }
    flags:
      checkout.v2: { active: true, rollout_percentage: 50 }
    secrets:
      stripe.key: { type: text }
      tls.cert: { type: file, file_name: tls.pem }
    services:
      checkout:
        name: Checkout
        configs: { db.pool: { value: 5 } }
`;

const lines = (plan: Plan) => plan.changes.map((c) => [changeLine(c), ...c.details].join(' | '));
const plan = (desired: string, options: { prune?: boolean; env?: NodeJS.ProcessEnv } = {}) =>
  planWorkspace(file(desired), current(CURRENT, { 'shop\0stripe.key': 'sk_1' }), {
    prune: options.prune ?? false,
    env: options.env ?? {},
  });

describe('planWorkspace', () => {
  it('nothing to do when the file is the workspace', () => {
    const result = plan(CURRENT);
    expect(result.changes).toEqual([]);
    expect(renderPlan(result)).toBe('No changes: workspace acme matches the file.\n');
  });

  it('lists exactly the changes, old → new, down to the JSON field', () => {
    const desired = CURRENT.replace('max: 10', 'max: 20')
      .replace('rollout_percentage: 50', 'rollout_percentage: 60, salt: s2')
      .replace('ui.theme: { value: dark, public: true }', 'ui.theme: { value: dark }')
      .replace('    flags:', '      new.one: { value: [1, 2] }\n    flags:');
    expect(lines(plan(desired))).toEqual([
      '~ config db.pool in shop | value.max: 10 → 20',
      '+ config new.one in shop | value: [1,2]',
      '~ config ui.theme in shop | public: true → false',
      '~ flag checkout.v2 in shop | rollout_percentage: 50 → 60 | salt: (none) → "s2"',
    ]);
    expect(renderPlan(plan(desired))).toContain(
      'Workspace acme: 1 to create, 3 to update, 0 to delete.',
    );
  });

  it('deletes what the file leaves out only with prune; otherwise says it is kept', () => {
    const desired = CURRENT.replace('      ui.theme: { value: dark, public: true }\n', '');
    const kept = plan(desired);
    expect(kept.changes).toEqual([]);
    expect(kept.notes).toEqual(['shop: config ui.theme not in the file: kept (--prune deletes)']);
    const pruned = plan(desired, { prune: true });
    expect(lines(pruned)).toEqual(['- config ui.theme in shop']);
    expect(pruned.changes[0]!.requests).toEqual([
      { method: 'DELETE', path: '/workspaces/acme/projects/shop/configs/ui.theme' },
    ]);
  });

  it('a service missing from the file: its values go with prune, the service stays', () => {
    const desired = CURRENT.slice(0, CURRENT.indexOf('    services:'));
    const result = plan(desired, { prune: true });
    expect(lines(result)).toEqual(['- config db.pool in shop/checkout']);
    expect(result.notes).toContain(
      'service shop/checkout is not in the file: the service stays (services are not deleted)',
    );
  });

  it('creates the workspace, projects (with the AB add-on) and services it does not find', () => {
    const result = planWorkspace(
      file(
        'name: Acme\nprojects:\n  web:\n    ab_testing: true\n    services: { api: { configs: { a: { value: 1 } } } }\n',
      ),
      undefined,
      { prune: false, env: {} },
    );
    expect(lines(result)).toEqual([
      '+ workspace acme | name: "Acme"',
      '+ project web | name: "web" | ab_testing: true',
      '+ service web/api | name: "api"',
      '+ config a in web/api | value: 1',
    ]);
    expect(result.changes[1]!.requests).toEqual([
      { method: 'POST', path: '/workspaces/acme/projects', body: { slug: 'web', name: 'web' } },
      { method: 'PATCH', path: '/workspaces/acme/projects/web', body: { ab_testing: true } },
    ]);
  });

  it('switches the AB add-on; a different name is a note (names are set at creation)', () => {
    const result = plan(CURRENT.replace('name: Shop', 'name: Store\n    ab_testing: true'));
    expect(lines(result)).toEqual(['~ project shop | ab_testing: false → true']);
    expect(result.notes).toContain(
      'project shop is named "Shop", not "Store": names are set at creation',
    );
  });

  it('secrets: a new version only when the value from the environment differs, never the value in the plan', () => {
    const withEnv = CURRENT.replace(
      'stripe.key: { type: text }',
      'stripe.key: { type: text, value_from_env: STRIPE_KEY }',
    );
    expect(plan(withEnv, { env: { STRIPE_KEY: 'sk_1' } }).changes).toEqual([]);
    const changed = plan(withEnv, { env: { STRIPE_KEY: 'sk_2' } });
    expect(lines(changed)).toEqual([
      '~ secret stripe.key in shop | new version: the value differs (value from $STRIPE_KEY)',
    ]);
    expect(changed.changes[0]!.requests[0]!.body).toEqual({
      value: 'sk_2',
      type: 'text',
      file_name: null,
    });
    expect(renderPlan(changed)).not.toContain('sk_2');
  });

  it('secrets the file cannot write: all named, with their paths', () => {
    const desired = CURRENT.replace(
      'tls.cert: { type: file, file_name: tls.pem }',
      'tls.cert: { type: file, file_name: cert.pem }\n      new.token: {}\n      other: { value_from_env: NOT_SET }',
    );
    expect(() => plan(desired)).toThrow(
      [
        'the file cannot be applied:',
        '  projects.shop.secrets.new\\.token: the secret does not exist and has no value_from_env to create it from',
        '  projects.shop.secrets.other.value_from_env: the environment variable NOT_SET is not set',
        '  projects.shop.secrets.tls\\.cert: file_name: "tls.pem" → "cert.pem" needs a new version: add value_from_env',
      ].join('\n'),
    );
  });

  it('items named like Object.prototype members are items like any other', () => {
    const result = plan(
      CURRENT.replace('    flags:', '      constructor: { value: 1 }\n    flags:'),
    );
    expect(lines(result)).toEqual(['+ config constructor in shop | value: 1']);
  });
});
