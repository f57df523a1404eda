/**
 * The workspace every third-party SDK is tested against, and the evaluations each SDK runs: 20
 * (user, flag) pairs whose answers must equal `POST /v1/flags/evaluate-ab`, configs of each type,
 * an unknown key, a private config asked with a public key, and a bad key. A driver in each
 * language runs the cases with its SDK and reports what came back (`Outcome`); `checkOutcomes`
 * says what each must be.
 */
import { expect } from 'vitest';
import { formatApiKey } from '@svc/domain';
import { httpCall, waitFor } from '@svc/testkit';
import type { Live } from './live.ts';

/** How a driver's provider sends the key. */
export type Auth = 'bearer' | 'x-api-key';
export type ValueType = 'boolean' | 'string' | 'integer' | 'float' | 'object';

export interface Case {
  name: string;
  apiKey: string;
  auth: Auth;
  type: ValueType;
  key: string;
  default: unknown;
  /** The evaluation context: `targetingKey` plus attributes. */
  context: Record<string, string | number | boolean>;
}

/** What an SDK's evaluation details said. */
export interface Outcome {
  name: string;
  value: unknown;
  reason?: string | null;
  variant?: string | null;
  errorCode?: string | null;
}

/** What a case must give: the value and, for errors, the OpenFeature error code. */
export interface Expected {
  value: unknown;
  errorCode?: string;
}

export interface Scenario {
  /** The provider's base URL: `{api}/{workspace}`. */
  baseUrl: string;
  sk: string;
  pk: string;
  cases: Case[];
  expected: Record<string, Expected>;
}

export const FLAGS = ['pro.only', 'half', 'de.blocked', 'everyone', 'switched.off'];

/** Creates workspace `slug` with flags, configs and a secret; builds the cases and expectations. */
export async function setUpScenario(live: Live, slug: string): Promise<Scenario> {
  const P = `/workspaces/${slug}/projects/web`;
  await live.admin('POST', '/workspaces', { slug, name: slug });
  await live.admin('POST', `/workspaces/${slug}/projects`, { slug: 'web', name: 'Web' });
  await live.admin('PATCH', P, { ab_testing: true });
  await live.admin('PUT', `${P}/flags/pro.only`, {
    is_active: true,
    rollout_percentage: 0,
    rules: [{ conditions: [{ attribute: 'plan', operator: 'eq', values: ['pro'] }], result: true }],
  });
  await live.admin('PUT', `${P}/flags/half`, { is_active: true, rollout_percentage: 50 });
  await live.admin('PUT', `${P}/flags/de.blocked`, {
    is_active: true,
    rollout_percentage: 40,
    rules: [
      { conditions: [{ attribute: 'country', operator: 'eq', values: ['DE'] }], result: false },
    ],
  });
  await live.admin('PUT', `${P}/flags/everyone`, { is_active: true });
  await live.admin('PUT', `${P}/flags/switched.off`, { is_active: false });
  await live.admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
  await live.admin('PUT', `${P}/configs/limits.rps`, { value: 40, is_public: true });
  await live.admin('PUT', `${P}/configs/ratio`, { value: 0.25, is_public: true });
  await live.admin('PUT', `${P}/configs/db.pool`, {
    value: { max: 10, hosts: ['a', 'b'] },
    is_public: false,
  });
  await live.admin('PUT', `${P}/secrets/stripe.key`, { value: 'sk_live_interop_7710' });
  const key = async (kind: 'secret' | 'public') =>
    (await live.admin('POST', `${P}/keys`, { kind })).json().key as string;
  const sk = await key('secret');
  const pk = await key('public');
  // The api has the key and everything above once the key's sync shows the secret.
  await waitFor(async () => {
    const res = await httpCall(live.apiPort, 'GET', `/${slug}/v1/sync`, {
      headers: { 'x-service-api-key': sk },
    });
    return res.status === 200 && res.json().secrets['stripe.key'] !== undefined;
  }, 10_000);

  const users = Array.from({ length: 4 }, (_, i) => ({
    targetingKey: `user-${i * 7919 + 13}`,
    plan: i % 2 === 0 ? 'pro' : 'free',
    country: i % 3 === 0 ? 'DE' : 'FR',
  }));
  const cases: Case[] = [];
  const expected: Record<string, Expected> = {};
  const add = (c: Case, e: Expected) => {
    cases.push(c);
    expected[c.name] = e;
  };
  for (const [u, user] of users.entries()) {
    const { targetingKey, ...attributes } = user;
    const ab = await httpCall(live.apiPort, 'POST', `/${slug}/v1/flags/evaluate-ab`, {
      headers: { 'x-service-api-key': sk },
      body: { flags: FLAGS, user_id: targetingKey, attributes },
    });
    for (const [f, flag] of FLAGS.entries()) {
      add(
        {
          name: `pair ${targetingKey} ${flag}`,
          // Both keys and both ways of sending them, in turn.
          apiKey: (u + f) % 2 === 0 ? sk : pk,
          auth: f % 2 === 0 ? 'bearer' : 'x-api-key',
          type: 'boolean',
          key: flag,
          default: false,
          context: user,
        },
        { value: ab.json().results[flag] },
      );
    }
  }
  const config = (name: string, type: ValueType, key: string, fallback: unknown, value: unknown) =>
    add(
      { name, apiKey: sk, auth: 'bearer', type, key, default: fallback, context: users[0]! },
      { value },
    );
  config('config string', 'string', 'ui.theme', 'none', 'dark');
  config('config integer', 'integer', 'limits.rps', 1, 40);
  config('config float', 'float', 'ratio', 1.5, 0.25);
  config('config object', 'object', 'db.pool', {}, { max: 10, hosts: ['a', 'b'] });
  const failure = (c: Omit<Case, 'context' | 'auth'>, errorCode: string) =>
    add(
      { ...c, auth: 'x-api-key', context: { targetingKey: 'user-1' } },
      { value: c.default, errorCode },
    );
  failure(
    { name: 'unknown key', apiKey: sk, type: 'boolean', key: 'no.such.flag', default: true },
    'FLAG_NOT_FOUND',
  );
  failure(
    {
      name: 'public key, private config',
      apiKey: pk,
      type: 'object',
      key: 'db.pool',
      default: { none: true },
    },
    'FLAG_NOT_FOUND',
  );
  failure(
    { name: 'public key, secret', apiKey: pk, type: 'string', key: 'stripe.key', default: 'none' },
    'FLAG_NOT_FOUND',
  );
  // A key of the right shape and checksum that the server never issued.
  const badKey = formatApiKey('secret', 'A'.repeat(34));
  failure(
    { name: 'bad key', apiKey: badKey, type: 'boolean', key: 'everyone', default: false },
    'GENERAL',
  );
  return { baseUrl: `${live.apiUrl}/${slug}`, sk, pk, cases, expected };
}

/**
 * Every case came back as expected: pairs equal evaluate-ab, configs typed, FLAG_NOT_FOUND with
 * the default for what the key does not see, an error with the default for a bad key.
 * `errorCodes` maps an expected code to what this SDK reports instead (documented per SDK).
 */
export function checkOutcomes(
  scenario: Scenario,
  outcomes: Outcome[],
  errorCodes: Record<string, string> = {},
): void {
  expect(outcomes.map((o) => o.name)).toEqual(scenario.cases.map((c) => c.name));
  const pairs = scenario.cases.filter((c) => c.name.startsWith('pair '));
  expect(pairs).toHaveLength(20);
  // Both answers occur among the pairs: a provider answering its default alone would fail.
  expect(new Set(pairs.map((c) => scenario.expected[c.name]!.value)).size).toBe(2);
  for (const outcome of outcomes) {
    const want = scenario.expected[outcome.name]!;
    expect(outcome.value, outcome.name).toEqual(want.value);
    if (want.errorCode === undefined) {
      expect(outcome.errorCode ?? undefined, outcome.name).toBeUndefined();
      expect(outcome.reason, outcome.name).toMatch(/^(TARGETING_MATCH|SPLIT|DISABLED|STATIC)$/);
    } else {
      const code = errorCodes[want.errorCode] ?? want.errorCode;
      expect(outcome.errorCode, outcome.name).toBe(code);
    }
  }
}
