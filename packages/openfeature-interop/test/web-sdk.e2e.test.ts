/**
 * `@openfeature/web-sdk` with `@openfeature/ofrep-web-provider` (from npm, unmodified, bundled
 * by esbuild) in headless Chromium, on a page served from another origin than the api (so CORS
 * is real), against the real console and api as processes. The provider fetches the bulk
 * evaluation (with its ETag) and follows the `eventStreams` it names.
 *
 * Chromium missing fails this file (never skips): `apt-get install -y chromium`.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcesses, waitFor, type ProcessServer } from '@svc/testkit';
import {
  createTestDatabase,
  requirePostgres,
  type TestDatabase,
} from '@svc/storage-postgres/testing';
import { ADMIN_TOKEN } from './support/global-setup.ts';
import { liveService } from './support/live.ts';
import {
  checkOutcomes,
  setUpScenario,
  type Case,
  type Outcome,
  type Scenario,
} from './support/scenario.ts';

const CHROMIUM = '/usr/bin/chromium';
const live = liveService();
const { server: pgServer } = await requirePostgres();
let pgLive: ProcessServer | undefined;
let database: TestDatabase | undefined;
let scenario: Scenario;
let site: Server;
let browser: Browser;
let page: Page;
/** Every request the page made to the api: method, path and query, status. */
const requests: Array<{ method: string; url: URL; status: number }> = [];

/** Serves the page and its bundle: an origin of its own. */
async function serveSite(): Promise<Server> {
  const bundle = await build({
    entryPoints: [new URL('./web/page.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
  });
  const script = bundle.outputFiles[0]!.contents;
  const server = createServer((req, res) => {
    if (req.url === '/page.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      return res.end(script);
    }
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>ofrep</title><script type="module" src="/page.js"></script>');
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

const call = <T>(fn: string, ...args: unknown[]): Promise<T> =>
  page.evaluate(
    ([name, rest]) => (globalThis as any).ofrep[name as string](...(rest as unknown[])),
    [fn, args] as const,
  ) as Promise<T>;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  scenario = await setUpScenario(live, 'web-sdk');
  site = await serveSite();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  page = await browser.newPage();
  page.on('response', (res) => {
    const url = new URL(res.url());
    if (url.port === String(live.apiPort) || url.port === String(pgLive?.apiPort)) {
      requests.push({ method: res.request().method(), url, status: res.status() });
    }
  });
  await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
  await page.waitForFunction(() => (globalThis as any).ofrep !== undefined);
}, 90_000);

afterAll(async () => {
  await pgLive?.stop();
  await database?.drop();
  await browser?.close();
  site?.close();
});

/** A provider per key and header; the context is set per user (a static-context provider). */
async function runAll(scenario: Scenario): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  /** Each domain's context, as last set. */
  const connected = new Map<string, string>();
  for (const c of scenario.cases) {
    const domain = `${c.auth}:${c.apiKey}`;
    const header =
      c.auth === 'bearer' ? ['Authorization', `Bearer ${c.apiKey}`] : ['X-API-Key', c.apiKey];
    const context = JSON.stringify(c.context);
    if (!connected.has(domain)) {
      await call('connect', domain, scenario.baseUrl, header, c.context);
    } else if (connected.get(domain) !== context) {
      await call('setContext', domain, c.context);
    }
    connected.set(domain, context);
    outcomes.push({
      name: c.name,
      ...(await call<Omit<Outcome, 'name'>>('details', domain, c.type, c.key, c.default)),
    });
  }
  return outcomes;
}

describe('OpenFeature web SDK + OFREP web provider (headless Chromium)', () => {
  it('evaluates as evaluate-ab, configs typed, FLAG_NOT_FOUND, a bad key fatal', async () => {
    const outcomes = await runAll(scenario);
    // A 401 at initialization makes the provider FATAL: the SDK answers PROVIDER_FATAL.
    checkOutcomes(scenario, outcomes, { GENERAL: 'PROVIDER_FATAL' });
    const bad = scenario.cases.find((c: Case) => c.name === 'bad key')!;
    expect(await call('status', `${bad.auth}:${bad.apiKey}`)).toBe('FATAL');
    // The provider used the bulk evaluation only, through CORS from another origin.
    const paths = new Set(requests.map((r) => `${r.method} ${r.url.pathname}`));
    expect(paths).toContain('POST /web-sdk/ofrep/v1/evaluate/flags');
    expect(paths).toContain('GET /web-sdk/ofrep/v1/events');
    expect([...paths].some((p) => p.includes('/evaluate/flags/'))).toBe(false);
  });

  it('sees a console change through the event stream, then a 304 when nothing changed', async () => {
    const domain = 'sse-watch';
    const context = { targetingKey: 'user-watch', plan: 'free' };
    expect(
      await call('connect', domain, scenario.baseUrl, ['X-API-Key', scenario.pk], context),
    ).toBeNull();
    // The provider connects to the stream the bulk answer named; the stream's first
    // refetchEvaluation makes it ask again, with its ETag: a 304.
    await waitFor(
      () => requests.some((r) => r.url.pathname.endsWith('/events') && r.status === 200),
      5000,
    );
    await waitFor(() => requests.some((r) => r.status === 304), 5000);
    const P = '/workspaces/web-sdk/projects/web';
    const latencies: number[] = [];
    for (let round = 0; round < 5; round++) {
      const theme = `theme-${round}`;
      const before = (await call<unknown[]>('changes')).length;
      const start = Date.now();
      await live.admin('PUT', `${P}/configs/ui.theme`, { value: theme, is_public: true });
      await page.waitForFunction(
        ([d, t]) => (globalThis as any).ofrep.details(d, 'string', 'ui.theme', '').value === t,
        [domain, theme] as const,
        { timeout: 10_000, polling: 5 },
      );
      const change = (await call<Array<{ domain: string; flags: string[]; at: number }>>('changes'))
        .slice(before)
        .find((c) => c.domain === domain && c.flags.includes('ui.theme'))!;
      expect(change).toBeDefined();
      latencies.push(change.at - start);
    }
    // With polling off (the provider's default), only the event stream can have told it;
    // the refetches it made carry the event's etag (flagConfigEtag).
    expect(requests.some((r) => r.url.searchParams.has('flagConfigEtag'))).toBe(true);
    console.log(
      `web SDK: console PUT to the page's ConfigurationChanged via the event stream: ${latencies.join(', ')} ms`,
    );
    expect(Math.max(...latencies)).toBeLessThan(5000);
  });
});

describe.runIf(pgServer)('the same, with the api on PostgreSQL (the bulk path)', () => {
  it('evaluates as evaluate-ab, configs typed, FLAG_NOT_FOUND, a bad key fatal', async () => {
    database = await createTestDatabase(pgServer!);
    pgLive = await startProcesses(ADMIN_TOKEN, { DATABASE_URL: database.url });
    const pg = await setUpScenario(pgLive, 'web-sdk-pg');
    checkOutcomes(pg, await runAll(pg), { GENERAL: 'PROVIDER_FATAL' });
    const bulk = requests.filter(
      (r) => r.url.port === String(pgLive!.apiPort) && r.url.pathname.endsWith('/evaluate/flags'),
    );
    expect(bulk.length).toBeGreaterThan(0);
  }, 120_000);
});
