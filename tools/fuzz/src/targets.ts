/**
 * What is fuzzed: one (app, OpenAPI file) pair a line. `url` and `headers` come from the live
 * fixture (src/fixture.ts); `config` is a schemathesis.toml under targets/ that pins path
 * parameters to what the fixture seeded (most of the time), so requests reach real resources.
 */
import type { Fixture } from './fixture.ts';

export interface FuzzTarget {
  name: string;
  /** The OpenAPI file, from the repository root. */
  spec: string;
  /** The base URL the spec's paths are under. */
  url: (f: Fixture) => Promise<string> | string;
  headers: (f: Fixture) => Record<string, string>;
  /** A schemathesis.toml under tools/fuzz/targets/, optional. */
  config?: string;
  /** More arguments for `schemathesis run` (e.g. operations to leave out). */
  args?: string[];
  /**
   * Schemathesis's phases; without `stateful` by default, which needs links in the spec (the
   * ones it infers join operations that do not fit together).
   */
  phases?: Array<'examples' | 'coverage' | 'fuzzing' | 'stateful'>;
}

export const TARGETS: FuzzTarget[] = [
  {
    name: 'console',
    spec: 'apps/console/openapi.yaml',
    url: (f) => `${f.consoleUrl}/api`,
    headers: (f) => ({ Authorization: `Bearer ${f.adminToken}` }),
    config: 'console.toml',
    phases: ['examples', 'coverage', 'fuzzing', 'stateful'],
  },
  {
    name: 'api',
    spec: 'apps/api/openapi.yaml',
    url: async (f) => `${await f.apiUrl()}/acme`,
    headers: (f) => ({ 'X-Service-API-Key': f.secretKey }),
    config: 'api.toml',
    // Event streams never end, so a fuzzer would wait on them forever; their heads, frames and
    // refusals are tested end to end (apps/api/test/stream, limits, ofrep).
    args: ['--exclude-path', '/v1/stream', '--exclude-path', '/ofrep/v1/events'],
  },
];
