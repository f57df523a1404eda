/**
 * The OpenFeature Go SDK (`github.com/open-feature/go-sdk`) with the OFREP provider of
 * `go-sdk-contrib/providers/ofrep`, from the Go module proxy (go.mod and go.sum in test/go; the
 * module cache is Go's own), against the real console and api as processes.
 *
 * The proxy serves provider v0.1.7 (later versions are refused). It has no initialization: with
 * a bad key its state stays READY and every evaluation answers the default with GENERAL. For a
 * flag whose reason is DISABLED it answers the caller's default (the cases' default is false,
 * which is also what evaluate-ab answers for an inactive flag).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveService } from './support/live.ts';
import { exec, runDriver } from './support/driver.ts';
import { checkOutcomes, setUpScenario, type Scenario } from './support/scenario.ts';

const dir = fileURLToPath(new URL('./go/', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'svc-go-driver-'));
const driver = join(out, 'driver');
const live = liveService();
let scenario: Scenario;

beforeAll(async () => {
  // -mod=readonly: the build uses go.sum as committed, never edits it.
  const built = exec('go', ['build', '-mod=readonly', '-o', driver, '.'], dir);
  await built;
  scenario = await setUpScenario(live, 'go-sdk');
}, 300_000);

afterAll(async () => {
  rmSync(out, { recursive: true, force: true });
});

describe('OpenFeature Go SDK + OFREP provider (go-sdk-contrib)', () => {
  it('evaluates as evaluate-ab, configs typed, FLAG_NOT_FOUND and errors with defaults', async () => {
    const outcomes = await runDriver({ command: driver, args: [], cwd: dir }, scenario);
    checkOutcomes(scenario, outcomes);
    const bad = outcomes.find((o) => o.name === 'bad key') as { providerStatus?: string };
    expect(bad.providerStatus).toBe('READY');
    const off = outcomes.find((o) => o.name.endsWith(' switched.off'))!;
    expect(off.reason).toBe('DISABLED');
  }, 60_000);
});
