/** `GET /v1/stream`: the caller's view as server-sent events, from the stream hub. */
import type { ServerResponse } from 'node:http';
import { syncView } from '@svc/domain';
import type { StreamHub, StreamSubscription } from '@svc/sse';
import { corsHeaders } from './cors.ts';
import { tooManyStreams, unavailable } from './http-errors.ts';
import type { KeyRoute } from './route-table.ts';
import { responseSink } from './stream-sink.ts';
import type { V1Deps } from './v1-routes.ts';

/** As better-sse sends them, plus CORS for browsers. */
const STREAM_HEADERS = {
  ...corsHeaders,
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;

export function streamHandler(
  deps: Pick<V1Deps, 'model' | 'hub' | 'clientAddress'>,
): KeyRoute['handle'] {
  const { model, hub, clientAddress } = deps;
  return (req, res, { principal }) =>
    startStream(res, hub, {
      view: syncView(model, principal),
      keyId: principal.key.id,
      keyExpiresAt: principal.key.expiresAt,
      lastEventId: parseLastEventId(req.headers['last-event-id']),
      clientId: `${principal.key.id} ${clientAddress(req)}`,
    });
}

/**
 * Answers `res` with the stream's head and hands it to the hub: 503 once the hub is closing,
 * 429 `too_many_streams` past the hub's limits (in all, or per key and client address).
 */
export function startStream(
  res: ServerResponse,
  hub: StreamHub,
  subscription: StreamSubscription,
): number {
  if (!hub.accepting) throw unavailable('the server is shutting down');
  const admission = hub.admit(subscription.clientId);
  if (admission === 'full') throw tooManyStreams('this server holds all the streams it may');
  if (admission === 'client') {
    throw tooManyStreams('this key holds all the streams it may from this address');
  }
  // Gone before it started: a stream would never see its 'close'. 499 as nginx counts it.
  if (res.destroyed) return 499;
  res.writeHead(200, STREAM_HEADERS);
  hub.open(responseSink(res), subscription);
  return 200;
}

/** A revision, or undefined for anything else (a client may send whatever it last saw). */
export function parseLastEventId(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
