import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { syncSnapshot, type ReadModel, type SyncGuard, type View } from '@svc/domain';
import { corsHeaders } from './cors.ts';
import { etagMatches } from './etag.ts';
import type { Tenant } from './tenant.ts';

/** What a view's sync responses need, prepared once per view (views are immutable). */
interface Prepared {
  bytes: Buffer;
  ok: OutgoingHttpHeaders;
  notModified: OutgoingHttpHeaders;
}

const prepared = new WeakMap<View, Prepared>();

function prepare(view: View): Prepared {
  let p = prepared.get(view);
  if (!p) {
    const bytes = Buffer.from(view.body, 'utf8');
    const common = { ...corsHeaders, ETag: view.etag, 'Cache-Control': 'private, no-cache' };
    p = {
      bytes,
      ok: { ...common, 'Content-Type': 'application/json', 'Content-Length': bytes.length },
      notModified: common,
    };
    prepared.set(view, p);
  }
  return p;
}

/** A view's body as bytes, encoded once per view. */
export function viewBytes(view: View): Buffer {
  return prepare(view).bytes;
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
    const p = prepare(view);
    if (etagMatches(req.headers['if-none-match'], view.etag)) {
      res.writeHead(304, p.notModified);
      res.end();
      return 304;
    }
    res.writeHead(200, p.ok);
    res.end(p.bytes);
    return 200;
  };
}
