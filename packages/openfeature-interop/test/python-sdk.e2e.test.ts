/**
 * The OpenFeature Python SDK (`openfeature-sdk`) with `openfeature-provider-ofrep`, installed from
 * PyPI into a venv this test creates (test/python/.venv, kept between runs; pip keeps its cache),
 * against the real console and api as processes.
 *
 * The provider has no initialization step: with a bad key its status stays READY and every
 * evaluation answers the default with GENERAL ("unauthorized"), which is what is checked.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { liveService } from './support/live.ts';
import { exec, runDriver } from './support/driver.ts';
import { checkOutcomes, setUpScenario, type Scenario } from './support/scenario.ts';

const dir = fileURLToPath(new URL('./python/', import.meta.url));
const venv = `${dir}.venv`;
const live = liveService();
let scenario: Scenario;

/** The venv with exactly the requirements, made or refreshed only when they change. */
async function ensureVenv(): Promise<void> {
  const requirements = readFileSync(`${dir}requirements.txt`, 'utf8');
  const marker = `${venv}/installed-requirements.txt`;
  if (existsSync(marker) && readFileSync(marker, 'utf8') === requirements) return;
  await exec('python3', ['-m', 'venv', '--clear', venv], dir);
  await exec(
    `${venv}/bin/pip`,
    ['install', '--disable-pip-version-check', '-q', '-r', 'requirements.txt'],
    dir,
  );
  writeFileSync(marker, requirements);
}

beforeAll(async () => {
  await ensureVenv();
  scenario = await setUpScenario(live, 'python-sdk');
}, 300_000);

describe('OpenFeature Python SDK + OFREP provider (PyPI)', () => {
  it('evaluates as evaluate-ab, configs typed, FLAG_NOT_FOUND and errors with defaults', async () => {
    const outcomes = await runDriver(
      { command: `${venv}/bin/python`, args: ['driver.py'], cwd: dir },
      scenario,
    );
    checkOutcomes(scenario, outcomes);
    const bad = outcomes.find((o) => o.name === 'bad key') as { providerStatus?: string };
    expect(bad.providerStatus).toBe('READY');
  }, 60_000);
});
