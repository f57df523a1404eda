import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { statusByCode, v1Routes, type V1Deps } from '@svc/http';

const spec = parse(readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8'));

describe('openapi.yaml', () => {
  it('documents exactly the routes of the /v1 table', () => {
    const routes = Object.entries(spec.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, ops]) =>
        Object.keys(ops)
          .filter((m) => m !== 'parameters')
          .map((m) => `${m.toUpperCase()} ${path}`),
    );
    // Only the table's methods and paths are read: the handlers' dependencies are not needed.
    const table = v1Routes({} as V1Deps).map((r) => `${r.method} ${r.path}`);
    expect(routes.sort()).toEqual(table.sort());
    expect(table).toEqual(
      expect.arrayContaining([
        'GET /v1/sync',
        'GET /v1/stream',
        'POST /v1/flags/evaluate-ab',
        'PUT /v1/secrets/{key}',
        'DELETE /v1/secrets/{key}',
        'DELETE /v1/secrets/{key}/versions/{version}',
      ]),
    );
  });

  it('lists every error code the server can answer', () => {
    const codes = spec.components.schemas.Problem.properties.code.enum as string[];
    expect(codes.sort()).toEqual([...Object.keys(statusByCode), 'internal'].sort());
  });
});
