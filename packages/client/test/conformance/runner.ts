/**
 * The TypeScript runner of the shared client scenarios (packages/client-conformance): reads each
 * scenario file and plays it against a live api, as packages/client-conformance/README.md says.
 * It throws on the first step that does not behave as stated.
 */
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { ServiceClient, ServiceError, silentLogger, type ServiceConfig } from '../../src/index.ts';

export const conformanceDir = fileURLToPath(
  new URL('../../../client-conformance/', import.meta.url),
);

export interface AdminCall {
  method: string;
  path: string;
  body?: unknown;
  save?: Record<string, string>;
}

export interface ErrorExpectation {
  type: string;
  code?: string;
  cause?: ErrorExpectation;
  retryAfterAtLeast?: number;
}

export interface Expectation {
  result?: unknown;
  empty?: true;
  error?: ErrorExpectation;
  instant?: { withinMsOfNow?: number; after?: string };
  file?: { content: string; mode?: string; dirMode?: string };
}

export interface Step {
  comment?: string;
  admin?: AdminCall;
  create?: string;
  config?: Record<string, unknown>;
  client?: string;
  call?: string;
  args?: unknown[];
  expect?: Expectation;
  save?: string;
  eventually?: { timeoutMs?: number; sync?: boolean };
  repeat?: number;
  sleepMs?: number;
  assertFileAbsent?: string;
}

export interface Scenario {
  name: string;
  description: string;
  setup: AdminCall[];
  steps: Step[];
}

export interface Live {
  apiUrl: string;
  /** A base URL where nothing listens. */
  deadUrl: string;
  adminRaw(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; text: string; json(): any }>;
}

export function loadScenarios(): Scenario[] {
  const dir = join(conformanceDir, 'scenarios');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Scenario);
}

export function serverEnv(): Record<string, string> {
  return JSON.parse(readFileSync(join(conformanceDir, 'server-env.json'), 'utf8'));
}

/** Named target types of `getConfigAs` (README: "Types"). */
const types: Record<string, z.ZodType> = {
  Pool: z.object({ max: z.number().int() }),
  String: z.string(),
};

const POLL_MS = 25;
let wsCounter = 0;

export async function runScenario(scenario: Scenario, live: Live): Promise<void> {
  const vars = new Map<string, unknown>([
    ['ws', `cf-${scenario.name}-${process.pid}-${++wsCounter}`.slice(0, 60).replace(/-+$/, '')],
    ['apiUrl', live.apiUrl],
    ['deadUrl', live.deadUrl],
  ]);
  const clients = new Map<string, ServiceClient>();
  const fill = <T>(value: T): T => substitute(value, vars) as T;

  const admin = async (call: AdminCall) => {
    const res = await live.adminRaw(call.method, fill(call.path), fill(call.body));
    if (res.status >= 300) {
      throw new Error(`${call.method} ${fill(call.path)} answered ${res.status}: ${res.text}`);
    }
    for (const [name, field] of Object.entries(call.save ?? {})) {
      const value = res.json()[field];
      vars.set(name, value);
      if (typeof value === 'string' && /^sv[sp]_/.test(value)) await awaitKey(value);
    }
  };
  // The api learns of new keys through its change feed; wait until it knows the key (and so
  // everything written before it).
  const awaitKey = async (key: string) => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const res = await fetch(`${live.apiUrl}/${String(vars.get('ws'))}/v1/sync`, {
        headers: { 'x-service-api-key': key },
      });
      await res.arrayBuffer();
      if (res.status === 200) return;
      if (Date.now() > deadline) throw new Error(`the api never accepted a new key: ${res.status}`);
      await sleep(POLL_MS);
    }
  };

  try {
    for (const call of scenario.setup) await admin(call);
    for (const [index, step] of scenario.steps.entries()) {
      try {
        // CONFORMANCE_TRACE=file: one line per step as it starts (to find a step that hangs).
        if (process.env.CONFORMANCE_TRACE) {
          appendFileSync(
            process.env.CONFORMANCE_TRACE,
            `${new Date().toISOString()} ${scenario.name} ${index} ${JSON.stringify(step)}\n`,
          );
        }
        await runStep(step);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(
          `${scenario.name} step ${index}: ${message}\n  step: ${JSON.stringify(step)}`,
          { cause: error },
        );
      }
    }
  } finally {
    await Promise.all([...clients.values()].map((c) => c.close()));
  }

  async function runStep(step: Step): Promise<void> {
    if (step.admin) return admin(step.admin);
    if (step.sleepMs !== undefined) return sleep(step.sleepMs);
    if (step.assertFileAbsent !== undefined) {
      const path = fill(step.assertFileAbsent);
      if (existsSync(path)) throw new Error(`${path} still exists`);
      return;
    }
    if (step.create !== undefined) {
      const outcome = await settle(() =>
        ServiceClient.create(clientConfig(fill(step.config ?? {}))),
      );
      check(outcome, step.expect ?? {}, vars);
      if (outcome.ok) {
        await clients.get(step.create)?.close();
        clients.set(step.create, outcome.value as ServiceClient);
      }
      return;
    }
    if (step.call === undefined || step.client === undefined) {
      throw new Error('a step needs admin, sleepMs, assertFileAbsent, create, or client + call');
    }
    const client = clients.get(step.client);
    if (!client) throw new Error(`no client named ${step.client}`);
    const args = fill(step.args ?? []);
    const attempt = () => settle(() => invoke(client, step.call!, args));
    const expectation = step.expect ?? {};

    let outcome: Outcome;
    if (step.repeat !== undefined) {
      // Until the expected outcome, or any failure (which `check` then judges).
      outcome = await attempt();
      for (let i = 1; i < step.repeat && outcome.ok && !matches(outcome, expectation, vars); i++) {
        outcome = await attempt();
      }
    } else if (step.eventually) {
      const deadline = Date.now() + (step.eventually.timeoutMs ?? 5000);
      for (;;) {
        if (step.eventually.sync) await client.sync().catch(() => undefined);
        outcome = await attempt();
        if (matches(outcome, expectation, vars) || Date.now() > deadline) break;
        await sleep(POLL_MS);
      }
    } else {
      outcome = await attempt();
    }
    check(outcome, expectation, vars);
    if (step.save !== undefined && outcome.ok) vars.set(step.save, outcome.value);
  }
}

function clientConfig(config: Record<string, unknown>): ServiceConfig {
  return { logger: silentLogger, ...config } as ServiceConfig;
}

/** Calls one client operation with the scenario's language-neutral arguments. */
function invoke(client: ServiceClient, call: string, args: unknown[]): unknown {
  const a = args as any[];
  switch (call) {
    case 'getConfig':
      return client.getConfig(a[0]);
    case 'getConfigAs': {
      const schema = types[a[1]];
      if (!schema) throw new Error(`unknown type ${a[1]}`);
      return client.getConfigAs(a[0], schema);
    }
    case 'getAllConfigs':
      return client.getAllConfigs();
    case 'getFlag':
      return a.length > 1 ? client.getFlag(a[0], a[1]) : client.getFlag(a[0]);
    case 'getAllFlags':
      return client.getAllFlags();
    case 'evaluateAB':
      return client.evaluateAB(a[0], a[1], a[2]);
    case 'getSecret':
      return client.getSecret(a[0]);
    case 'getSecretFilePath':
      return client.getSecretFilePath(a[0]);
    case 'setSecret':
      return a.length > 2
        ? client.setSecret(a[0], a[1], { expectedVersion: a[2] })
        : client.setSecret(a[0], a[1]);
    case 'deleteSecret':
      return client.deleteSecret(a[0]);
    case 'deleteSecretVersion':
      return client.deleteSecretVersion(a[0], a[1]);
    case 'getKeyType':
      return client.getKeyType();
    case 'getSyncedAt':
      return client.getSyncedAt();
    case 'isStreamConnected':
      return client.isStreamConnected();
    case 'sync':
      return client.sync();
    case 'connectStream':
      return client.connectStream();
    case 'disconnectStream':
      return client.disconnectStream();
    case 'close':
      return client.close();
    default:
      throw new Error(`unknown call ${call}`);
  }
}

/** Every call name and error type a scenario may use (README: "Calls", "Errors"). */
export const CALLS = [
  'getConfig',
  'getConfigAs',
  'getAllConfigs',
  'getFlag',
  'getAllFlags',
  'evaluateAB',
  'getSecret',
  'getSecretFilePath',
  'setSecret',
  'deleteSecret',
  'deleteSecretVersion',
  'getKeyType',
  'getSyncedAt',
  'isStreamConnected',
  'sync',
  'connectStream',
  'disconnectStream',
  'close',
];

export const ERROR_TYPES = [
  'IllegalArgument',
  'Service',
  'ServiceInit',
  'ServiceUnauthorized',
  'ServiceNotFound',
  'ServicePublicKey',
  'ServiceSecretNotFound',
  'ServiceAbAddonNotAvailable',
  'ServiceBilling',
  'ServiceRateLimited',
  'ServiceQuarantined',
];

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

async function settle(fn: () => unknown): Promise<Outcome> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

function matches(outcome: Outcome, expectation: Expectation, vars: Map<string, unknown>): boolean {
  try {
    check(outcome, expectation, vars);
    return true;
  } catch {
    return false;
  }
}

function check(outcome: Outcome, expectation: Expectation, vars: Map<string, unknown>): void {
  if (expectation.error) {
    if (outcome.ok) {
      throw new Error(`expected ${expectation.error.type}, got the result ${show(outcome.value)}`);
    }
    checkError(outcome.error, expectation.error);
    return;
  }
  if (!outcome.ok) throw new Error(`unexpected error: ${describeError(outcome.error)}`);
  const value = outcome.value;
  if (expectation.empty) {
    if (value !== undefined) throw new Error(`expected nothing, got ${show(value)}`);
  }
  if ('result' in expectation && !isDeepStrictEqual(plain(value), expectation.result)) {
    throw new Error(`expected ${show(expectation.result)}, got ${show(value)}`);
  }
  if (expectation.instant) {
    if (!(value instanceof Date)) throw new Error(`expected an instant, got ${show(value)}`);
    const { withinMsOfNow, after } = expectation.instant;
    if (withinMsOfNow !== undefined && Math.abs(Date.now() - value.getTime()) > withinMsOfNow) {
      throw new Error(`${value.toISOString()} is not within ${withinMsOfNow} ms of now`);
    }
    if (after !== undefined) {
      const before = vars.get(after);
      if (!(before instanceof Date)) throw new Error(`${after} is not a saved instant`);
      if (value.getTime() <= before.getTime()) {
        throw new Error(`${value.toISOString()} is not after ${before.toISOString()}`);
      }
    }
  }
  if (expectation.file) {
    if (typeof value !== 'string' || !isAbsolute(value)) {
      throw new Error(`expected an absolute path, got ${show(value)}`);
    }
    if (!existsSync(value)) throw new Error(`${value} does not exist`);
    const content = readFileSync(value, 'utf8');
    if (content !== expectation.file.content) throw new Error(`${value} holds ${show(content)}`);
    if (process.platform !== 'win32') {
      const mode = (statSync(value).mode & 0o777).toString(8);
      if (expectation.file.mode !== undefined && mode !== expectation.file.mode) {
        throw new Error(`${value} has mode ${mode}`);
      }
      const dirMode = (statSync(dirname(value)).mode & 0o777).toString(8);
      if (expectation.file.dirMode !== undefined && dirMode !== expectation.file.dirMode) {
        throw new Error(`${dirname(value)} has mode ${dirMode}`);
      }
    }
  }
}

function checkError(error: unknown, expected: ErrorExpectation): void {
  const type = errorTypeOf(error);
  if (type !== expected.type) {
    throw new Error(`expected ${expected.type}, got ${type}: ${describeError(error)}`);
  }
  const e = error as ServiceError & { retryAfter?: number };
  if (expected.code !== undefined && e.code !== expected.code) {
    throw new Error(`expected code ${expected.code}, got ${e.code}: ${describeError(error)}`);
  }
  if (expected.retryAfterAtLeast !== undefined) {
    if (typeof e.retryAfter !== 'number' || e.retryAfter < expected.retryAfterAtLeast) {
      throw new Error(`expected retryAfter >= ${expected.retryAfterAtLeast}, got ${e.retryAfter}`);
    }
  }
  if (expected.cause !== undefined) checkError(e.cause, expected.cause);
}

/** The language-neutral name of an error (README: "Errors"). */
function errorTypeOf(error: unknown): string {
  if (error instanceof ServiceError) return error.constructor.name.replace(/Error$/, '');
  if (error instanceof TypeError) return 'IllegalArgument';
  return `unexpected ${error instanceof Error ? error.constructor.name : typeof error}`;
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause === undefined ? '' : ` (cause: ${describeError(error.cause)})`;
  return `${error.constructor.name}: ${error.message}${cause}`;
}

/** Results as plain JSON data (frozen and null-prototype objects compare like plain ones). */
function plain(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function show(value: unknown): string {
  return value instanceof Date ? value.toISOString() : JSON.stringify(value);
}

function substitute(value: unknown, vars: Map<string, unknown>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\{([A-Za-z][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      if (!vars.has(name)) throw new Error(`unknown placeholder {${name}}`);
      return String(vars.get(name));
    });
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, vars)]));
  }
  return value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
