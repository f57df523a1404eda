import { describe, expect, it } from 'vitest';
import { evaluateFlag } from '../ab/evaluate.ts';
import { flagEntry } from '../ab/flag-entry.fixture.ts';
import { UnauthorizedError } from '../errors.ts';
import type { ApiKeyRecord, Project, Workspace } from '../model.ts';
import type { ProjectState } from '../ports.ts';
import { ProjectViews } from '../views/project-views.ts';
import type { Principal } from '../views/read-model.ts';
import { viewId, type View } from '../views/view.ts';
import {
  evaluatesPerUser,
  ofrepEntries,
  resolveOfrepKey,
  type OfrepContext,
} from './ofrep-evaluation.ts';
import { VIEW_TOKEN_PERIOD_MS, ViewTokens, type TokenSigner } from './view-tokens.ts';

const flag = flagEntry;
const config = (key: string, value: unknown, isPublic: boolean) => ({
  key,
  valueJson: JSON.stringify(value),
  isPublic,
  updatedAt: 0,
});

const project: Project = {
  id: 'p',
  workspaceId: 'w',
  slug: 'web',
  name: 'Web',
  abTesting: true,
  revision: 3,
  createdAt: 0,
};
const workspace: Workspace = {
  id: 'w',
  slug: 'acme',
  name: 'Acme',
  billingStatus: 'ok',
  createdAt: 0,
};
const state: ProjectState = {
  project,
  services: [],
  configs: new Map([
    [
      '',
      [
        config('ui.theme', 'dark', true),
        config('db.pool', { max: 10 }, false),
        config('shadowed', 1, true),
      ],
    ],
  ]),
  flags: new Map([
    [
      '',
      [
        flag('pro.only', {
          rules: [
            { conditions: [{ attribute: 'plan', operator: 'eq', values: ['pro'] }], result: true },
          ],
          rolloutPercentage: 0,
        }),
        flag('half', { rolloutPercentage: 50, salt: 'exp-42' }),
        flag('off', { isActive: false }),
        flag('shadowed'),
      ],
    ],
  ]),
  secrets: new Map([
    [
      '',
      [
        {
          key: 'stripe.key',
          version: 1,
          type: 'text',
          fileName: null,
          sealed: 's',
          createdAt: 0,
        },
      ],
    ],
  ]),
};
const views = ProjectViews.build(state, { open: () => 'plain', digest: (t) => t });
const viewOf = (keyType: 'sk' | 'pk'): View =>
  [...views.allViews()].find((v) => v.id === viewId('p', null, keyType))!;

const user = (userId: string | undefined, attributes = {}): OfrepContext => ({
  userId,
  attributes,
});

describe('resolveOfrepKey', () => {
  const sk = viewOf('sk');

  it('evaluates a flag per user as evaluate-ab does, with the reason', () => {
    expect(resolveOfrepKey(sk, true, 'pro.only', user('u-1', { plan: 'pro' }))).toEqual({
      key: 'pro.only',
      valueJson: 'true',
      reason: 'TARGETING_MATCH',
      variant: 'on',
    });
    expect(resolveOfrepKey(sk, true, 'off', user('u-1'))).toMatchObject({
      valueJson: 'false',
      reason: 'DISABLED',
      variant: 'off',
    });
    for (let i = 0; i < 20; i++) {
      const answer = resolveOfrepKey(sk, true, 'half', user(`u-${i}`))!;
      expect(answer.reason).toBe('SPLIT');
      expect(answer.valueJson).toBe(String(evaluateFlag(sk.flags.get('half'), `u-${i}`, {})));
    }
  });

  it('is the flag is_active, STATIC, without a user or without per-user evaluation', () => {
    for (const [perUser, context] of [
      [true, user(undefined, { plan: 'free' })],
      [false, user('u-1', { plan: 'free' })],
    ] as const) {
      expect(resolveOfrepKey(sk, perUser, 'pro.only', context)).toMatchObject({
        valueJson: 'true',
        reason: 'STATIC',
        variant: 'on',
      });
      expect(resolveOfrepKey(sk, perUser, 'off', context)).toMatchObject({
        valueJson: 'false',
        reason: 'STATIC',
        variant: 'off',
      });
    }
  });

  it('resolves a config to its JSON value, a flag of the same key first, never a secret', () => {
    expect(resolveOfrepKey(sk, true, 'db.pool', user('u'))).toEqual({
      key: 'db.pool',
      valueJson: '{"max":10}',
      reason: 'STATIC',
      variant: 'default',
    });
    expect(resolveOfrepKey(sk, true, 'shadowed', user('u'))?.valueJson).toBe('true');
    expect(resolveOfrepKey(sk, true, 'stripe.key', user('u'))).toBeUndefined();
    expect(resolveOfrepKey(sk, true, 'nope', user('u'))).toBeUndefined();
  });

  it('gives a public key public configs only', () => {
    const pk = viewOf('pk');
    expect(resolveOfrepKey(pk, true, 'ui.theme', user('u'))?.valueJson).toBe('"dark"');
    expect(resolveOfrepKey(pk, true, 'db.pool', user('u'))).toBeUndefined();
    expect(resolveOfrepKey(pk, true, 'half', user('u'))).toBeDefined();
  });
});

describe('ofrepEntries', () => {
  it('lists flags, then configs no flag hides, each sorted by key, no secret', () => {
    const { flags, configs } = ofrepEntries(viewOf('sk'));
    expect(flags.map((f) => f.key)).toEqual(['half', 'off', 'pro.only', 'shadowed']);
    expect(configs).toEqual([
      ['db.pool', '{"max":10}'],
      ['ui.theme', '"dark"'],
    ]);
    expect(ofrepEntries(viewOf('pk')).configs).toEqual([['ui.theme', '"dark"']]);
  });
});

const key = { id: 'k1' } as ApiKeyRecord;
const principal = (fields: Partial<Principal> = {}): Principal => ({
  workspace,
  project,
  key,
  keyType: 'sk',
  viewId: viewId('p', null, 'sk'),
  ...fields,
});

describe('evaluatesPerUser', () => {
  it('needs the AB add-on on and billing in order', () => {
    expect(evaluatesPerUser(principal())).toBe(true);
    expect(evaluatesPerUser(principal({ project: { ...project, abTesting: false } }))).toBe(false);
    expect(
      evaluatesPerUser(principal({ workspace: { ...workspace, billingStatus: 'overdue' } })),
    ).toBe(false);
  });
});

/** Base64 of the payload plus a fake signature; anything else does not verify. */
function fakeSigner(keyId = 'k'): TokenSigner & { signed: number } {
  return {
    keyId,
    signed: 0,
    sign(payload) {
      this.signed++;
      return `${Buffer.from(payload).toString('base64url')}.sig-${keyId}`;
    },
    verify(token) {
      const [body, sig] = token.split('.');
      return sig === `sig-${keyId}` ? Buffer.from(body!, 'base64url').toString() : undefined;
    },
  };
}

describe('ViewTokens', () => {
  const start = 1000 * VIEW_TOKEN_PERIOD_MS + 123;

  it('grants the principal view, workspace and key, the same token all period', () => {
    let now = start;
    const signer = fakeSigner();
    const tokens = new ViewTokens({ signer, clock: { now: () => now } });
    const token = tokens.issue(principal());
    expect(tokens.read(token)).toEqual({ workspaceId: 'w', viewId: 'p||sk', keyId: 'k1' });
    now += VIEW_TOKEN_PERIOD_MS / 2;
    expect(tokens.issue(principal())).toBe(token);
    expect(signer.signed).toBe(1);
    const stamp = tokens.stamp();
    now = 1001 * VIEW_TOKEN_PERIOD_MS;
    expect(tokens.stamp()).not.toBe(stamp);
    expect(tokens.issue(principal())).not.toBe(token);
  });

  it('keeps a token valid at least 12 and at most 24 hours', () => {
    for (const offset of [0, VIEW_TOKEN_PERIOD_MS - 1]) {
      let now = start - 123 + offset;
      const tokens = new ViewTokens({ signer: fakeSigner(), clock: { now: () => now } });
      const issuedAt = now;
      const token = tokens.issue(principal());
      now = issuedAt + VIEW_TOKEN_PERIOD_MS;
      expect(tokens.read(token).keyId).toBe('k1');
      now = 1002 * VIEW_TOKEN_PERIOD_MS;
      expect(now - issuedAt).toBeLessThanOrEqual(2 * VIEW_TOKEN_PERIOD_MS);
      expect(() => tokens.read(token)).toThrow(/expired/);
    }
  });

  it('refuses forged, malformed and overlong tokens, and tokens of another key', () => {
    const tokens = new ViewTokens({ signer: fakeSigner(), clock: { now: () => start } });
    const other = new ViewTokens({ signer: fakeSigner('x'), clock: { now: () => start } });
    const fake = (payload: unknown) =>
      `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig-k`;
    const far = 2000 * VIEW_TOKEN_PERIOD_MS;
    for (const bad of [
      other.issue(principal()),
      'not-a-token',
      fake(['v0', far, 'w', 'v', 'k']),
      fake(['v1', String(far), 'w', 'v', 'k']),
      fake(['v1', far, 'w', 'v']),
      fake(['v1', far, 'w', 'v', 7]),
      fake({ v: 1 }),
      `${Buffer.from('[').toString('base64url')}.sig-k`,
      `${'a'.repeat(2000)}.sig-k`,
    ]) {
      expect(() => tokens.read(bad)).toThrow(UnauthorizedError);
    }
    expect(tokens.stamp()).not.toBe(other.stamp());
  });
});
