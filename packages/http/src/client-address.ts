import type { IncomingMessage } from 'node:http';

/**
 * The caller's address, for limits counted per client: the socket's peer, or the first
 * `X-Forwarded-For` hop when the api runs behind a proxy the operator trusts (`TRUST_PROXY`).
 * Without that trust the header is ignored: any client could write it.
 */
export function clientAddressOf(trustProxy: boolean): (req: IncomingMessage) => string {
  return (req) => {
    if (trustProxy) {
      const forwarded = req.headers['x-forwarded-for'];
      const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',', 1)[0]?.trim();
      if (first) return first;
    }
    return req.socket.remoteAddress ?? '';
  };
}
