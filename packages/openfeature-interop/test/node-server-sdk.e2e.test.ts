/**
 * `@openfeature/server-sdk` with `@openfeature/ofrep-provider` (from npm, unmodified) against the
 * real console and api as processes: the provider posts one OFREP single evaluation per call.
 *
 * The registry has ofrep-provider 0.1.3 only; it has no `initialize`, so a bad key does not
 * change its status: every evaluation answers the default with GENERAL (what the SDK makes of
 * the provider's OFREPApiUnauthorizedError), which is what this test checks.
 */
import {
  OpenFeature,
  type Client,
  type EvaluationDetails,
  type FlagValue,
  type JsonValue,
} from '@openfeature/server-sdk';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveService } from './support/live.ts';
import {
  checkOutcomes,
  setUpScenario,
  type Case,
  type Outcome,
  type Scenario,
} from './support/scenario.ts';

const live = liveService();
let scenario: Scenario;

beforeAll(async () => {
  scenario = await setUpScenario(live, 'node-sdk');
}, 60_000);

afterAll(async () => {
  await OpenFeature.close();
});

const clients = new Map<string, Client>();

/** One provider per key and way of sending it, each in a domain of its own. */
async function clientFor(c: Pick<Case, 'apiKey' | 'auth'>): Promise<Client> {
  const domain = `${c.auth}:${c.apiKey}`;
  let client = clients.get(domain);
  if (!client) {
    const header: [string, string] =
      c.auth === 'bearer' ? ['Authorization', `Bearer ${c.apiKey}`] : ['X-API-Key', c.apiKey];
    await OpenFeature.setProviderAndWait(
      domain,
      new OFREPProvider({ baseUrl: scenario.baseUrl, headers: [header] }),
    );
    clients.set(domain, (client = OpenFeature.getClient(domain)));
  }
  return client;
}

async function run(c: Case): Promise<Outcome> {
  const client = await clientFor(c);
  let details: EvaluationDetails<FlagValue>;
  if (c.type === 'boolean') {
    details = await client.getBooleanDetails(c.key, c.default as boolean, c.context);
  } else if (c.type === 'string') {
    details = await client.getStringDetails(c.key, c.default as string, c.context);
  } else if (c.type === 'object') {
    details = await client.getObjectDetails(c.key, c.default as JsonValue, c.context);
  } else {
    details = await client.getNumberDetails(c.key, c.default as number, c.context);
  }
  return {
    name: c.name,
    value: details.value,
    reason: details.reason,
    variant: details.variant,
    errorCode: details.errorCode,
  };
}

describe('OpenFeature server SDK + OFREP provider (Node)', () => {
  it('evaluates as evaluate-ab, configs typed, FLAG_NOT_FOUND and errors with defaults', async () => {
    const outcomes: Outcome[] = [];
    for (const c of scenario.cases) outcomes.push(await run(c));
    checkOutcomes(scenario, outcomes);
  });

  it('reports the reasons and variants the api decided', async () => {
    const user = { targetingKey: 'user-5', plan: 'pro' };
    const client = await clientFor({ apiKey: scenario.sk, auth: 'bearer' });
    expect(await client.getBooleanDetails('pro.only', false, user)).toMatchObject({
      value: true,
      reason: 'TARGETING_MATCH',
      variant: 'on',
    });
    expect((await client.getBooleanDetails('half', false, user)).reason).toBe('SPLIT');
    expect(await client.getBooleanDetails('switched.off', true, user)).toMatchObject({
      value: false,
      reason: 'DISABLED',
      variant: 'off',
    });
    expect(await client.getStringDetails('ui.theme', 'x', user)).toMatchObject({
      reason: 'STATIC',
      variant: 'default',
    });
    // A config asked as another type: the SDK's TYPE_MISMATCH, with the default.
    expect(await client.getNumberDetails('ui.theme', 7, user)).toMatchObject({
      value: 7,
      errorCode: 'TYPE_MISMATCH',
    });
  });
});
