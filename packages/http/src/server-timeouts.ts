import type { ServerOptions } from 'node:http';

/** Request headers must arrive within this, and a whole request within the next (then 408). */
export const HEADERS_TIMEOUT_MS = 15_000;
export const REQUEST_TIMEOUT_MS = 30_000;

/** `createServer` options that hold slow clients to those limits. */
export function serverTimeouts(
  headersTimeout = HEADERS_TIMEOUT_MS,
  requestTimeout = REQUEST_TIMEOUT_MS,
): ServerOptions {
  return {
    headersTimeout,
    requestTimeout: Math.max(headersTimeout, requestTimeout),
    // How often the limits are checked: node's default, 30 s, would let 15 s become 45.
    connectionsCheckingInterval: Math.min(1000, headersTimeout),
  };
}
