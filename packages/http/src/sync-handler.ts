import type { IncomingMessage, ServerResponse } from 'node:http';
import { syncSnapshot, type ReadModel, type SyncGuard, type View } from '@svc/domain';
import { corsHeaders } from './cors.ts';
import { etagMatches } from './etag.ts';
import type { Tenant } from './tenant.ts';

const bodyBytes = new WeakMap<View, Buffer>();

/** A view's body as bytes, encoded once per view. */
export function viewBytes(view: View): Buffer {
  let bytes = bodyBytes.get(view);
  if (!bytes) {
    bytes = Buffer.from(view.body, 'utf8');
    bodyBytes.set(view, bytes);
  }
  return bytes;
}

/** `GET /v1/sync`: precomputed bytes and ETag from the caller's view; no query, no JSON work. */
export function syncHandler(model: ReadModel, guard?: SyncGuard) {
  return (req: IncomingMessage, res: ServerResponse, tenant: Tenant): number => {
    const apiKey = req.headers['x-service-api-key'];
    const { view } = syncSnapshot(
      model,
      { slug: tenant.slug, apiKey: typeof apiKey === 'string' ? apiKey : undefined },
      guard,
    );
    const headers = {
      ...corsHeaders,
      ETag: view.etag,
      'Cache-Control': 'private, no-cache',
    };
    if (etagMatches(req.headers['if-none-match'], view.etag)) {
      res.writeHead(304, headers);
      res.end();
      return 304;
    }
    const bytes = viewBytes(view);
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'application/json',
      'Content-Length': bytes.length,
    });
    res.end(bytes);
    return 200;
  };
}
