/** The workspace file: YAML and schema errors named by path and line, defaults, the JSON Schema. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseWorkspaceFile } from '../src/workspace-file/read-file.ts';
import { formatPath } from '../src/workspace-file/file-path.ts';
import { workspaceYaml } from '../src/workspace-file/write-file.ts';
import { schemaReference } from '../src/workspace-file/schema-location.ts';
import { schemaPath, schemaText } from '../src/workspace-file/write-json-schema.ts';
import { repoRoot } from './support/paths.ts';

const errorOf = (text: string) => {
  try {
    parseWorkspaceFile(text, 'svc.yaml');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
};

const SHOP = `version: 1
workspace: acme
projects:
  shop:
    flags:
      checkout.v2:
        active: true
        rollout_percentage: 101
`;

describe('reading a workspace file', () => {
  it('names the path of a bad value (dots in keys escaped) and its line', () => {
    expect(errorOf(SHOP)).toContain(
      'svc.yaml:8: projects.shop.flags.checkout\\.v2.rollout_percentage: must be ≤ 100',
    );
  });

  it('reports every problem at once, each with its path', () => {
    const message = errorOf(`version: 1
workspace: Acme
projects:
  shop:
    colour: blue
    configs:
      "bad key": { value: 1 }
      ok: { public: true }
    flags:
      x:
        active: "yes"
        rollout_percentage: 10.001
        rules:
          - conditions: [{ attribute: country, operator: is, values: [] }]
            result: true
    secrets:
      s: { type: text, file_name: a.pem }
      t: { value_from_env: "not-a-name" }
`);
    for (const line of [
      'svc.yaml:2: workspace: must be 1..63 lowercase letters, digits or inner hyphens',
      'svc.yaml:5: projects.shop.colour: unknown field',
      'projects.shop.configs.bad key: not a valid key: must be dot-separated segments of [A-Za-z0-9_-]',
      'svc.yaml:8: projects.shop.configs.ok.value: is required',
      'svc.yaml:11: projects.shop.flags.x.active: must be a boolean',
      'projects.shop.flags.x.rollout_percentage: must have at most two decimals',
      'projects.shop.flags.x.rules[0].conditions[0].operator: must be "eq" or "neq"',
      'projects.shop.flags.x.rules[0].conditions[0].values: must have at least 1 entries',
      'projects.shop.secrets.s.file_name: only file secrets have a file_name',
      'projects.shop.secrets.t.value_from_env: must be an environment variable name',
    ]) {
      expect(message).toContain(line);
    }
  });

  it('refuses what is not YAML, duplicate keys, and a missing version', () => {
    expect(errorOf('version: 1\nworkspace: [acme\n')).toMatch(
      /is not valid YAML:\n {2}svc\.yaml:\d+:/,
    );
    expect(errorOf('version: 1\nworkspace: a\nworkspace: b\n')).toContain('svc.yaml:3:');
    expect(errorOf('workspace: acme\n')).toContain('version: must be 1');
    expect(errorOf('')).toContain('workspace: is required');
  });

  it('fills in the defaults; two-decimal rollouts pass as they are', () => {
    const file = parseWorkspaceFile(
      `version: 1
workspace: acme
projects:
  shop:
    configs: { ui.theme: { value: dark } }
    flags:
      a: { active: true, rollout_percentage: 33.33 }
      b: { active: false, rollout_percentage: 0.07 }
      c: { active: true }
    secrets: { tls.cert: { type: file, file_name: tls.pem }, token: {} }
`,
      'svc.yaml',
    );
    const shop = file.projects.shop!;
    expect(shop.ab_testing).toBe(false);
    expect(shop.services).toEqual({});
    expect(shop.configs['ui.theme']).toEqual({ value: 'dark', public: false });
    expect(shop.flags.a!.rollout_percentage).toBe(33.33);
    expect(shop.flags.b!.rollout_percentage).toBe(0.07);
    expect(shop.flags.c).toEqual({ active: true, rules: [], rollout_percentage: 100 });
    expect(shop.secrets.token).toEqual({ type: 'text' });
  });

  it('refuses a key named __proto__ rather than lose it (zod leaves such entries out)', () => {
    expect(
      errorOf(
        'version: 1\nworkspace: acme\nprojects:\n  shop:\n    configs:\n      __proto__: { value: 1 }\n',
      ),
    ).toContain(
      'svc.yaml:6: projects.shop.configs.__proto__: a key named __proto__ cannot be managed',
    );
  });
});

describe('writing a workspace file', () => {
  it('points at the schema, sorts keys, leaves defaults out, and reads back to the same', () => {
    const source = `version: 1
workspace: acme
name: Acme
projects:
  shop:
    name: Shop
    ab_testing: true
    configs:
      z.last: { value: { max: 10, hosts: [a, b] }, public: true }
      a.first: { value: "multi\\nline" }
      n.number: { value: "42" }
    flags:
      checkout.v2:
        active: true
        rules: [{ conditions: [{ attribute: country, operator: in, values: [DE, AT] }], result: true }]
        rollout_percentage: 12.5
        salt: s1
    secrets:
      tls.cert: { type: file, file_name: tls.pem }
    services:
      checkout: { name: Checkout, configs: { db.pool: { value: 5 } } }
      empty: { name: Empty }
`;
    const file = parseWorkspaceFile(source, 'in.yaml');
    const text = workspaceYaml(file, './schema.json');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./schema.json');
    expect(text.indexOf('a.first')).toBeLessThan(text.indexOf('n.number'));
    expect(text.indexOf('n.number')).toBeLessThan(text.indexOf('z.last'));
    expect(text).toContain('n.number:\n        value: "42"');
    expect(text).not.toContain('public: false');
    expect(text).not.toContain('rules: []');
    expect(parseWorkspaceFile(text, 'out.yaml')).toEqual(file);
    expect(workspaceYaml(parseWorkspaceFile(text, 'out.yaml'), './schema.json')).toBe(text);
  });
});

describe('the JSON Schema that ships with the package', () => {
  it('is the one the zod definition generates (pnpm --filter @svc/cli schema rewrites it)', () => {
    expect(JSON.parse(readFileSync(schemaPath, 'utf8'))).toEqual(JSON.parse(schemaText()));
  });

  it('knows the fields editors complete', () => {
    const schema = JSON.parse(schemaText());
    const project = schema.properties.projects.additionalProperties;
    const flag = project.properties.flags.additionalProperties;
    expect(Object.keys(flag.properties)).toEqual(['active', 'rules', 'rollout_percentage', 'salt']);
    expect(flag.properties.rollout_percentage).toMatchObject({ minimum: 0, maximum: 100 });
    expect(flag.required).toEqual(['active']);
    expect(schema.required).toEqual(['version', 'workspace']);
  });
});

describe('the $schema reference of an export', () => {
  it('is relative to the written file, or absolute when only the root is shared', () => {
    expect(schemaReference(`${repoRoot}/infra/svc.yaml`)).toBe(
      '../packages/cli/schema/workspace.schema.json',
    );
    expect(schemaReference(`${repoRoot}/svc.yaml`)).toBe(
      './packages/cli/schema/workspace.schema.json',
    );
    // A folder that shares only the root with the repository, wherever the checkout is.
    const elsewhere = repoRoot.split('/')[1] === 'srv' ? '/opt' : '/srv';
    expect(schemaReference(`${elsewhere}/svc.yaml`)).toBe(schemaPath);
  });
});

describe('paths', () => {
  it('escape dots and backslashes in keys and index lists', () => {
    expect(formatPath(['projects', 'shop', 'flags', 'checkout.v2', 'rules', 0, 'result'])).toBe(
      'projects.shop.flags.checkout\\.v2.rules[0].result',
    );
    expect(formatPath(['a\\b'])).toBe('a\\\\b');
  });
});
