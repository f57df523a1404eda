import { beforeAll, describe, expect, it } from 'vitest';
import { formatApiKey, type KeyKind } from '../api-key-format.ts';
import {
  AbAddonInactiveError,
  BillingOverdueError,
  NotFoundError,
  UnauthorizedError,
} from '../errors.ts';
import type { ApiKeyRecord, Project, Service, Workspace } from '../model.ts';
import type { ProjectState, StoreReader } from '../ports.ts';
import { ReadModel } from '../views/read-model.ts';
import type { Attributes } from './conditions.ts';
import { authorizeEvaluateAb, evaluateAb } from './evaluate-ab.ts';
import { flagEntry } from './flag-entry.fixture.ts';

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

const flag = flagEntry;
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
    identityId: null,
    expiresAt: null,
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
  findIdentity: notUsed,
  listIdentities: notUsed,
  countLiveIdentityKeys: notUsed,
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

interface Request {
  flags: string[];
  user_id: string;
  attributes?: Attributes;
}

const body = (patch: Partial<Request> = {}): Request => ({
  flags: ['checkout.v2'],
  user_id: 'u-123',
  ...patch,
});

/** What the api does: authenticate (404/401), authorize (402/403), then evaluate typed input. */
function evaluate(slug: string, apiKey: string | undefined, request: Request = body()) {
  const principal = model.authenticate(slug, apiKey);
  authorizeEvaluateAb(principal);
  return evaluateAb(model.viewOf(principal), {
    flags: request.flags,
    userId: request.user_id,
    attributes: request.attributes ?? {},
  });
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

  it('402 when the workspace billing is overdue, before the add-on', () => {
    expect(() => evaluate('late', lateKey)).toThrow(BillingOverdueError);
  });

  it('403 when the project has no AB Testing add-on', () => {
    expect(() => evaluate('acme', plainKey)).toThrow(AbAddonInactiveError);
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
