import { describe, expect, it } from 'vitest';
import type { ConfigEntry, FlagEntry, SecretVersion } from '../model.ts';
import type { ProjectState } from '../ports.ts';
import { ProjectViews } from './project-views.ts';
import { diffItems, viewId, type OpenSecret } from './view.ts';

const config = (key: string, value: unknown, isPublic: boolean): ConfigEntry => ({
  key,
  valueJson: JSON.stringify(value),
  isPublic,
  updatedAt: 0,
});
const flag = (key: string, isActive: boolean): FlagEntry => ({
  key,
  isActive,
  rules: [],
  rolloutPercentage: 100,
  salt: null,
  updatedAt: 0,
});
const secret = (key: string, version: number, sealed: string, file?: string): SecretVersion => ({
  key,
  version,
  type: file ? 'file' : 'text',
  fileName: file ?? null,
  sealed,
  createdAt: 0,
});
const open: OpenSecret = (s) => `plain(${s.sealed})`;

/** What a key of `keyType` bound to `serviceId` sees of `state`. */
function buildViewContent(
  projectState: ProjectState,
  serviceId: string | null,
  keyType: 'sk' | 'pk',
  openSecret: OpenSecret,
) {
  const views = ProjectViews.build(projectState, { open: openSecret, digest: (t) => t });
  const id = viewId(projectState.project.id, serviceId, keyType);
  const view = [...views.allViews()].find((v) => v.id === id)!;
  return { items: view.items, flags: view.flags, body: view.body };
}

const state: ProjectState = {
  project: {
    id: 'p',
    workspaceId: 'w',
    slug: 'web',
    name: 'Web',
    abTesting: false,
    revision: 7,
    createdAt: 0,
  },
  services: [{ id: 's', projectId: 'p', slug: 'billing', name: 'Billing', createdAt: 0 }],
  configs: new Map([
    [
      '',
      [
        config('db.pool', { max: 10 }, false),
        config('ui.theme', 'dark', true),
        config('ui.logo', 'a.png', true),
      ],
    ],
    ['s', [config('db.pool', { max: 50 }, false), config('ui.logo', 'b.png', false)]],
  ]),
  flags: new Map([
    ['', [flag('beta', true), flag('old', false)]],
    ['s', [flag('beta', false)]],
  ]),
  secrets: new Map([
    ['', [secret('stripe', 2, 'S2'), secret('tls', 1, 'T1', 'tls.pem')]],
    ['s', [secret('stripe', 5, 'SS5')]],
  ]),
};

describe('views', () => {
  it('shows a project-level secret key the project values', () => {
    const { items, flags } = buildViewContent(state, null, 'sk', open);
    expect(Object.fromEntries(items)).toEqual({
      'config:db.pool': '{"max":10}',
      'config:ui.theme': '"dark"',
      'config:ui.logo': '"a.png"',
      'flag:beta': 'true',
      'flag:old': 'false',
      'secret:stripe': '{"value":"plain(S2)","type":"text","version":2}',
      'secret:tls': '{"value":"plain(T1)","type":"file","version":1,"file_name":"tls.pem"}',
    });
    expect(flags.get('beta')?.isActive).toBe(true);
  });

  it('overlays the service values for a service-bound key', () => {
    const { items, flags } = buildViewContent(state, 's', 'sk', open);
    expect(items.get('config:db.pool')).toBe('{"max":50}');
    expect(items.get('flag:beta')).toBe('false');
    expect(flags.get('beta')?.isActive).toBe(false);
    expect(items.get('secret:stripe')).toBe('{"value":"plain(SS5)","type":"text","version":5}');
    expect(items.get('secret:tls')).toContain('plain(T1)');
  });

  it('filters a public key to public configs after the overlay, all flags and no secrets', () => {
    const project = buildViewContent(state, null, 'pk', open).items;
    expect([...project.keys()].sort()).toEqual([
      'config:ui.logo',
      'config:ui.theme',
      'flag:beta',
      'flag:old',
    ]);
    // The service made ui.logo private: its public value must not leak through.
    const service = buildViewContent(state, 's', 'pk', open).items;
    expect([...service.keys()].sort()).toEqual(['config:ui.theme', 'flag:beta', 'flag:old']);
  });

  it('renders snapshot bytes with sorted keys and no secrets member for public keys', () => {
    const sk = buildViewContent(state, null, 'sk', open).body;
    expect(JSON.parse(sk)).toMatchObject({
      revision: 7,
      key_type: 'sk',
      secrets: { stripe: { version: 2 } },
    });
    expect(sk.indexOf('"db.pool"')).toBeLessThan(sk.indexOf('"ui.logo"'));
    expect(sk.indexOf('"ui.logo"')).toBeLessThan(sk.indexOf('"ui.theme"'));
    const pk = buildViewContent(state, null, 'pk', open).body;
    expect(pk).toBe(
      '{"revision":7,"key_type":"pk","configs":{"ui.logo":"a.png","ui.theme":"dark"},"flags":{"beta":true,"old":false}}',
    );
    const empty = { ...state, configs: new Map(), flags: new Map(), secrets: new Map() };
    expect(buildViewContent(empty, null, 'sk', open).body).toBe(
      '{"revision":7,"key_type":"sk","configs":{},"flags":{},"secrets":{}}',
    );
  });

  it('diffs item sets into upserts and deletes', () => {
    const before = new Map([
      ['config:a', '1'],
      ['config:b', '2'],
      ['flag:c', 'true'],
    ] as const);
    const after = new Map([
      ['config:a', '1'],
      ['config:b', '3'],
      ['flag:d', 'false'],
    ] as const);
    expect(diffItems(before, after)).toEqual([
      { id: 'config:b', op: 'upsert', json: '3' },
      { id: 'flag:d', op: 'upsert', json: 'false' },
      { id: 'flag:c', op: 'delete' },
    ]);
    expect(diffItems(after, after)).toEqual([]);
  });
});
