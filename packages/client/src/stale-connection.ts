/**
 * Node's fetch (undici) keeps idle connections for reuse; a server closes its idle keep-alive
 * connections too (Node's after 5 s), and a request sent on one just as the server closes it
 * fails before any byte of an answer: "other side closed" (`UND_ERR_SOCKET`) or `ECONNRESET`.
 * The Node entry's fetch sends such a GET again at once, once, on a fresh connection. Only a
 * GET: a write may have reached the server, and is never sent twice.
 */

/** Error codes of a connection the other side closed or reset. */
const CLOSED = new Set(['UND_ERR_SOCKET', 'ECONNRESET']);

/** `fetch` with a GET that failed on a closed pooled connection retried once. */
export function retryingClosedConnections(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    try {
      return await fetch(input, init);
    } catch (error) {
      const { code } = ((error as Error).cause ?? {}) as { code?: unknown };
      const idempotent = (init?.method ?? 'GET') === 'GET';
      if (!idempotent || !CLOSED.has(code as string) || init?.signal?.aborted) throw error;
      return fetch(input, init);
    }
  };
}
