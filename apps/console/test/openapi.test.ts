import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MANAGEMENT_ROUTES, statusByCode } from '@svc/http';

const spec = parse(readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8'));
type Operation = { requestBody?: unknown; responses: Record<string, unknown> };
const operations = Object.entries(spec.paths as Record<string, Record<string, Operation>>).flatMap(
  ([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => method !== 'parameters')
      .map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op })),
);

describe('openapi.yaml of the management API', () => {
  it('documents exactly the routes of the management route table', () => {
    const table = MANAGEMENT_ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(table).size).toBe(table.length);
    expect(operations.map((o) => o.route).sort()).toEqual(table.sort());
  });

  it('documents the refusals every route can answer', () => {
    for (const { route, op } of operations) {
      // Bad percent-encoding in the path is a 400 anywhere; no token a 401.
      expect(Object.keys(op.responses), route).toEqual(expect.arrayContaining(['400', '401']));
      if (route.includes('{')) expect(Object.keys(op.responses), route).toContain('404');
      if (op.requestBody) expect(Object.keys(op.responses), route).toContain('413');
    }
  });

  it('names only error codes the server has', () => {
    const codes = spec.components.schemas.Problem.properties.code.enum as string[];
    expect([...Object.keys(statusByCode), 'internal']).toEqual(expect.arrayContaining(codes));
  });
});
