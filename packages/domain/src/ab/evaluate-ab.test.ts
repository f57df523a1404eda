import { beforeAll, describe, expect, it } from 'vitest';
import { formatApiKey, type KeyKind } from '../api-key-format.ts';
import {
  AbAddonInactiveError,
  BillingOverdueError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from '../errors.ts';
import type { ApiKeyRecord, FlagEntry, Project, Service, Workspace } from '../model.ts';
import type { ProjectState, StoreReader } from '../ports.ts';
import { ReadModel } from '../views/read-model.ts';
import { evaluateAb } from './evaluate-ab.ts';

// A tiny world: workspace `acme` (billing ok) with an AB project, its service `web` and a
// project without the add-on; workspace `late` (billing overdue) whose project has no add-on either.
const workspaces: Workspace[] = [
  { id: 'w-acme', slug: 'acme', name: 'Acme', billingStatus: 'ok', createdAt: 0 },
  { id: 'w-late', slug: 'late', name: 'Late', billingStatus: 'overdue', createdAt: 0 },
];
const project = (id: string, workspaceId: string, abTesting: boolean): Project => ({
  id,
  workspaceId,
  slug: id,
  name: id,
  abTesting,
  revision: 1,
  createdAt: 0,
});
const projects = [
  project('p-ab', 'w-acme', true),
  project('p-plain', 'w-acme', false),
  project('p-late', 'w-late', false),
];
const web: Service = { id: 's-web', projectId: 'p-ab', slug: 'web', name: 'web', createdAt: 0 };

const flag = (key: string, patch: Partial<FlagEntry> = {}): FlagEntry => ({
  key,
  isActive: true,
  rules: [],
  rolloutPercentage: 100,
  salt: null,
  updatedAt: 0,
  ...patch,
});
const projectFlags = [
  flag('checkout.v2'),
  flag('search.beta', { isActive: false }),
  flag('dark.mode', { rolloutPercentage: 0 }),
  flag('de.only', {
    rolloutPercentage: 0,
    rules: [
      { conditions: [{ attribute: 'country', operator: 'eq', values: ['DE'] }], result: true },
    ],
  }),
  flag('__proto__'),
];
// The service turns checkout.v2 off for keys bound to it.
const webFlags = [flag('checkout.v2', { isActive: false })];

let keySerial = 0;
const keys: ApiKeyRecord[] = [];
function addKey(kind: KeyKind, projectId: string, patch: Partial<ApiKeyRecord> = {}): string {
  const raw = formatApiKey(kind, String(++keySerial).padStart(34, 'K'));
  const workspaceId = projects.find((p) => p.id === projectId)!.workspaceId;
  keys.push({
    id: `k-${keySerial}`,
    workspaceId,
    projectId,
    serviceId: null,
    kind,
    name: '',
    prefix: raw.slice(0, 10),
    hash: `hash:${raw}`,
    createdAt: 0,
    lastUsedAt: null,
    revokedAt: null,
    ...patch,
  });
  return raw;
}
const secretKey = addKey('secret', 'p-ab');
const publicKey = addKey('public', 'p-ab');
const webKey = addKey('secret', 'p-ab', { serviceId: 's-web' });
const revokedKey = addKey('secret', 'p-ab', { revokedAt: 1 });
const plainKey = addKey('secret', 'p-plain');
const lateKey = addKey('secret', 'p-late');
const unknownKey = formatApiKey('secret', 'Z'.repeat(34));

function projectState(p: Project): ProjectState {
  const ab = p.id === 'p-ab';
  return {
    project: p,
    services: ab ? [web] : [],
    configs: new Map(),
    flags: new Map(
      ab
        ? [
            ['', projectFlags],
            [web.id, webFlags],
          ]
        : [],
    ),
    secrets: new Map(),
  };
}

const notUsed = (): never => {
  throw new Error('not used by the read model');
};

/** An in-memory StoreReader holding the world above: only what ReadModel.load reads. */
const store: StoreReader = {
  findWorkspaceBySlug: async (slug) => workspaces.find((w) => w.slug === slug),
  findWorkspaceById: async (id) => workspaces.find((w) => w.id === id),
  listWorkspaces: async () => workspaces,
  findProject: notUsed,
  findProjectById: async (id) => projects.find((p) => p.id === id),
  listProjects: async () => projects,
  findService: notUsed,
  listServices: async () => [],
  findApiKeyByHash: async (hash) => keys.find((k) => k.hash === hash),
  findApiKeyById: async (id) => keys.find((k) => k.id === id),
  listApiKeys: async () => keys,
  listConfigs: notUsed,
  listFlags: notUsed,
  findConfig: notUsed,
  findFlag: notUsed,
  findSecret: notUsed,
  listSecrets: notUsed,
  listSecretVersions: notUsed,
  loadProjectState: async (id) => {
    const p = projects.find((candidate) => candidate.id === id);
    return p && projectState(p);
  },
  changesAfter: async () => [],
  lastChangeSeq: async () => 0,
  listAudit: notUsed,
  listSealedVersions: notUsed,
};

let model: ReadModel;

beforeAll(async () => {
  model = new ReadModel({
    store,
    sealer: { seal: (plaintext) => plaintext, open: (sealed) => sealed },
    hasher: { hash: (key) => `hash:${key}`, equals: (a, b) => a === b },
    digest: (text) => String(text.length),
  });
  await model.load();
});

const body = (patch: Record<string, unknown> = {}) => ({
  flags: ['checkout.v2'],
  user_id: 'u-123',
  ...patch,
});

function evaluate(slug: string, apiKey: string | undefined, requestBody: unknown = body()) {
  return evaluateAb(model, { slug, apiKey, body: requestBody });
}

/** The ValidationError's field, or a failure when something else happened. */
function failingField(requestBody: unknown): string {
  try {
    evaluateAb(model, { slug: 'acme', apiKey: secretKey, body: requestBody });
  } catch (error) {
    if (error instanceof ValidationError) return error.field;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('evaluateAb: who may evaluate', () => {
  it('404 for an unknown workspace, before the key is looked at', () => {
    expect(() => evaluate('nope', undefined)).toThrow(NotFoundError);
  });

  it('401 for a missing, malformed, unknown, revoked or foreign key', () => {
    for (const key of [undefined, '', 'svs_short', unknownKey, revokedKey, lateKey]) {
      expect(() => evaluate('acme', key)).toThrow(UnauthorizedError);
    }
  });

  it('401 comes before validation: an unauthenticated caller learns nothing about its body', () => {
    expect(() => evaluate('acme', undefined, 'not a body')).toThrow(UnauthorizedError);
  });

  it('402 when the workspace billing is overdue, before the add-on and the body', () => {
    expect(() => evaluate('late', lateKey)).toThrow(BillingOverdueError);
    expect(() => evaluate('late', lateKey, {})).toThrow(BillingOverdueError);
  });

  it('403 when the project has no AB Testing add-on, before the body', () => {
    expect(() => evaluate('acme', plainKey)).toThrow(AbAddonInactiveError);
    expect(() => evaluate('acme', plainKey, {})).toThrow(AbAddonInactiveError);
  });
});

describe('evaluateAb: body validation', () => {
  it('needs a JSON object', () => {
    for (const bad of [null, undefined, 'x', 42, [], [body()]])
      expect(failingField(bad)).toBe('body');
  });

  it('needs flags: a list of 1..100 flag keys', () => {
    expect(failingField(body({ flags: undefined }))).toBe('flags');
    expect(failingField(body({ flags: 'checkout.v2' }))).toBe('flags');
    expect(failingField(body({ flags: [] }))).toBe('flags');
    expect(failingField(body({ flags: Array(101).fill('a') }))).toBe('flags');
    expect(failingField(body({ flags: ['a', 'b', 'c', 7] }))).toBe('flags[3]');
    expect(failingField(body({ flags: ['a', ''] }))).toBe('flags[1]');
    expect(failingField(body({ flags: ['a..b'] }))).toBe('flags[0]');
    expect(failingField(body({ flags: ['with space'] }))).toBe('flags[0]');
    expect(failingField(body({ flags: ['a'.repeat(257)] }))).toBe('flags[0]');
    expect(
      evaluate('acme', secretKey, body({ flags: Array(100).fill('a'.repeat(256)) })),
    ).toBeDefined();
  });

  it('needs user_id: a string of 1..256 characters', () => {
    expect(failingField(body({ user_id: undefined }))).toBe('user_id');
    expect(failingField(body({ user_id: 42 }))).toBe('user_id');
    expect(failingField(body({ user_id: '' }))).toBe('user_id');
    expect(failingField(body({ user_id: 'x'.repeat(257) }))).toBe('user_id');
    expect(failingField(body({ user_id: 'bad\ud800' }))).toBe('user_id');
    expect(evaluate('acme', secretKey, body({ user_id: 'x'.repeat(256) }))).toBeDefined();
    // Characters, not UTF-16 units: 256 emoji are 512 units.
    expect(evaluate('acme', secretKey, body({ user_id: '😀'.repeat(256) }))).toBeDefined();
    expect(failingField(body({ user_id: '😀'.repeat(257) }))).toBe('user_id');
  });

  it('takes optional attributes: an object of at most 50 entries with names of 1..256 characters', () => {
    expect(failingField(body({ attributes: null }))).toBe('attributes');
    expect(failingField(body({ attributes: [] }))).toBe('attributes');
    expect(failingField(body({ attributes: 'DE' }))).toBe('attributes');
    const many = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, i]));
    expect(failingField(body({ attributes: many(51) }))).toBe('attributes');
    expect(failingField(body({ attributes: { '': 1 } }))).toBe('attributes');
    expect(failingField(body({ attributes: { ['n'.repeat(257)]: 1 } }))).toBe('attributes');
    expect(evaluate('acme', secretKey, body({ attributes: many(50) }))).toBeDefined();
    expect(
      evaluate('acme', secretKey, body({ attributes: { nested: { any: ['json'] } } })),
    ).toBeDefined();
  });

  it('names the first failing field in order: flags, user_id, attributes', () => {
    expect(failingField({ flags: [], user_id: '', attributes: null })).toBe('flags');
    expect(failingField({ flags: ['a'], user_id: '', attributes: null })).toBe('user_id');
  });
});

describe('evaluateAb: results', () => {
  it('answers every requested key; unknown and inactive flags are false', () => {
    const { results } = evaluate('acme', secretKey, {
      flags: ['checkout.v2', 'search.beta', 'dark.mode', 'no.such.flag', 'de.only'],
      user_id: 'u-123',
      attributes: { country: 'DE' },
    });
    expect(JSON.parse(JSON.stringify(results))).toEqual({
      'checkout.v2': true,
      'search.beta': false,
      'dark.mode': false,
      'no.such.flag': false,
      'de.only': true,
    });
  });

  it('evaluates targeting with the request attributes, none meaning no attributes', () => {
    const de = evaluate(
      'acme',
      secretKey,
      body({ flags: ['de.only'], attributes: { country: 'DE' } }),
    );
    const fr = evaluate(
      'acme',
      secretKey,
      body({ flags: ['de.only'], attributes: { country: 'FR' } }),
    );
    const none = evaluate('acme', secretKey, body({ flags: ['de.only'] }));
    expect([de.results['de.only'], fr.results['de.only'], none.results['de.only']]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('accepts duplicate keys and answers each once', () => {
    const { results } = evaluate(
      'acme',
      secretKey,
      body({ flags: ['checkout.v2', 'checkout.v2'] }),
    );
    expect(JSON.stringify(results)).toBe('{"checkout.v2":true}');
  });

  it('keeps a flag named __proto__ as a plain result key', () => {
    const { results } = evaluate('acme', secretKey, body({ flags: ['__proto__', 'nothing'] }));
    expect(JSON.stringify(results)).toBe('{"__proto__":true,"nothing":false}');
  });

  it('uses the key’s own view: public keys see every flag, service keys the service overlay', () => {
    const request = body({ flags: ['checkout.v2', 'dark.mode'] });
    expect(evaluate('acme', publicKey, request).results['checkout.v2']).toBe(true);
    expect(evaluate('acme', webKey, request).results['checkout.v2']).toBe(false);
    expect(evaluate('acme', webKey, request).results['dark.mode']).toBe(false);
  });
});
