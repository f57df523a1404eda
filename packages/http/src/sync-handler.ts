import type { OutgoingHttpHeaders } from 'node:http';
import { syncView, type View } from '@svc/domain';
import { corsHeaders } from './cors.ts';
import { etagMatches } from './etag.ts';
import type { KeyRoute } from './route-table.ts';
import type { V1Deps } from './v1-routes.ts';

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
    const common = {
      ...corsHeaders,
      ETag: view.etag,
      'Cache-Control': 'private, no-cache',
      'X-Content-Type-Options': 'nosniff',
    };
    p = {
      bytes,
      ok: { ...common, 'Content-Type': 'application/json', 'Content-Length': bytes.length },
      notModified: common,
    };
    prepared.set(view, p);
  }
  return p;
}

/** `GET /v1/sync`: precomputed bytes and ETag from the caller's view; no query, no JSON work. */
export function syncHandler(
  deps: Pick<V1Deps, 'model' | 'syncGuard' | 'clientAddress'>,
): KeyRoute['handle'] {
  const { model, syncGuard, clientAddress } = deps;
  return (req, res, { principal }) => {
    const view = syncView(model, principal, syncGuard, clientAddress(req));
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
