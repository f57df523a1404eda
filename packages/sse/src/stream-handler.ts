/** `GET /v1/stream`: authenticates like sync (401/404 before the stream opens), then hands over. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { syncSnapshot, type ReadModel } from '@svc/domain';
import type { Tenant } from '@svc/http';
import type { StreamHub } from './stream-hub.ts';

export function streamHandler(model: ReadModel, hub: StreamHub) {
  return (req: IncomingMessage, res: ServerResponse, tenant: Tenant): number => {
    const apiKey = req.headers['x-service-api-key'];
    // Throws the domain's 404/401, which the listener writes as problem+json: no stream yet.
    const { principal, view } = syncSnapshot(model, {
      slug: tenant.slug,
      apiKey: typeof apiKey === 'string' ? apiKey : undefined,
    });
    hub.open(res, {
      view,
      keyId: principal.key.id,
      lastEventId: parseLastEventId(req.headers['last-event-id']),
    });
    return res.statusCode;
  };
}

/** A revision, or undefined for anything else (a client may send whatever it last saw). */
export function parseLastEventId(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
