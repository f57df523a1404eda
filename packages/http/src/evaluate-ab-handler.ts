import type { IncomingMessage, ServerResponse } from 'node:http';
import { evaluateAb, type ReadModel } from '@svc/domain';
import { corsHeaders } from './cors.ts';
import { readJsonBody } from './json-body.ts';
import type { Tenant } from './tenant.ts';

/** The response headers but the length, as a flat list (cheaper than an object per request). */
const HEADERS: readonly string[] = [
  ...Object.entries(corsHeaders).flat(),
  'Content-Type',
  'application/json',
  'Cache-Control',
  'no-store',
];

/**
 * `POST /v1/flags/evaluate-ab`, a lean handler: flags are evaluated from the caller's view in
 * memory. The key is checked before the body is read, so 401/404 cost no body transfer.
 */
export function evaluateAbHandler(model: ReadModel) {
  // Not `async`: an auth failure throws at once (no body read), and the body's promise is the
  // only one a request makes.
  return (req: IncomingMessage, res: ServerResponse, tenant: Tenant): Promise<number> => {
    const header = req.headers['x-service-api-key'];
    const apiKey = typeof header === 'string' ? header : undefined;
    model.authenticate(tenant.slug, apiKey);
    return readJsonBody(req).then((body) => {
      const text = JSON.stringify(evaluateAb(model, { slug: tenant.slug, apiKey, body }));
      res.writeHead(200, [...HEADERS, 'Content-Length', String(Buffer.byteLength(text))]);
      res.end(text);
      return 200;
    });
  };
}
