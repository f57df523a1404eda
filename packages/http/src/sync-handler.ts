import { syncView } from '@svc/domain';
import type { KeyRoute } from './route-table.ts';
import { SyncAnswers } from './sync-answers.ts';
import type { V1Deps } from './v1-routes.ts';

/**
 * `GET /v1/sync`: the caller's view as prepared bytes (JSON, gzip or brotli, as the request
 * accepts) with their ETag; no query, no JSON work, no compression on the request path.
 */
export function syncHandler(
  deps: Pick<V1Deps, 'model' | 'syncGuard' | 'clientAddress' | 'syncAnswers'>,
): KeyRoute['handle'] {
  const { model, syncGuard, clientAddress } = deps;
  const answers = deps.syncAnswers ?? new SyncAnswers((id) => model.view(id));
  return (req, res, { principal }) => {
    const view = answers.of(syncView(model, principal, syncGuard, clientAddress(req)));
    const served = view.pick(req.headers['accept-encoding']);
    if (view.matches(req.headers['if-none-match'], served)) {
      res.writeHead(304, served.notModifiedHead);
      res.end();
      return 304;
    }
    res.writeHead(200, served.okHead);
    res.end(served.bytes);
    return 200;
  };
}
