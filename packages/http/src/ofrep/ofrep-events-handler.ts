/**
 * `GET {base_url}/ofrep/v1/events?view=<token>`: the event stream a bulk answer names. The URL
 * authenticates itself (a browser's EventSource sends no headers): the token must be ours,
 * unexpired, of this workspace, of a key still active, and of a view that exists. It grants
 * `refetchEvaluation` notices and nothing else.
 */
import { NotFoundError, UnauthorizedError } from '@svc/domain';
import type { OfrepSubscription } from '@svc/sse';
import type { OpenRoute } from '../route-table.ts';
import { startStream } from '../stream-handler.ts';
import type { V1Deps } from '../v1-routes.ts';

export function ofrepEventsHandler(
  deps: Pick<V1Deps, 'model' | 'ofrep' | 'clientAddress'>,
): OpenRoute['handle'] {
  const { model } = deps;
  return (req, res, { tenant }) => {
    if (!deps.ofrep) throw new NotFoundError('this server has no OFREP event streams');
    const token = new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('view');
    if (!token) throw new UnauthorizedError('a view token is required (?view=)');
    const grant = deps.ofrep.tokens.read(token);
    const view = model.view(grant.viewId);
    const key = model.activeKey(grant.keyId);
    if (model.workspaceBySlug(tenant.slug)?.id !== grant.workspaceId || !key || !view) {
      throw new UnauthorizedError('invalid view token');
    }
    const subscription: OfrepSubscription = {
      view,
      keyId: grant.keyId,
      workspaceId: grant.workspaceId,
      // The same limits as /v1/stream: per key and client address, and per process.
      clientId: `${grant.keyId} ${deps.clientAddress(req)}`,
      // A minted key's streams end at its expiry, as /v1/stream's do.
      keyExpiresAt: key.expiresAt,
    };
    return startStream(res, deps.ofrep.hub, subscription);
  };
}
