/**
 * The shared client scenarios (packages/client-conformance/scenarios/*.json) against a live api:
 * the real console and api in this process over a temp SQLite file, with the server settings
 * the scenarios assume (server-env.json).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CALLS,
  ERROR_TYPES,
  loadScenarios,
  runScenario,
  serverEnv,
  type Live,
} from './conformance/runner.ts';
import { freePort, startInProcess, type LiveServer } from './support/server.ts';

const scenarios = loadScenarios();
let server: LiveServer;
let live: Live;

beforeAll(async () => {
  server = await startInProcess(serverEnv());
  live = {
    apiUrl: server.apiUrl,
    deadUrl: `http://127.0.0.1:${await freePort()}`,
    adminRaw: server.adminRaw,
  };
}, 30_000);

afterAll(() => server?.stop());

describe('shared client scenarios', () => {
  it.concurrent.each(scenarios.map((s) => [s.name, s] as const))(
    '%s',
    async (_, scenario) => {
      await runScenario(scenario, live);
    },
    30_000,
  );

  it('cover every call of the client surface and every error', () => {
    const calls = new Set<string>();
    const errors = new Set<string>();
    const collect = (e: any) => {
      if (!e) return;
      errors.add(e.type);
      collect(e.cause);
    };
    for (const s of scenarios) {
      for (const step of s.steps) {
        if (step.call) calls.add(step.call);
        if (step.create) calls.add('create');
        collect(step.expect?.error);
      }
    }
    expect([...calls].sort()).toEqual([...CALLS, 'create'].sort());
    expect([...errors].sort()).toEqual([...ERROR_TYPES].sort());
  });
});
