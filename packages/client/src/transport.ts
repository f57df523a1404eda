/**
 * Requests to the service over `fetch`: the API key header, a time limit per request, and the
 * translation of problem+json answers into the client's errors. Platform-free: each entry passes
 * its own extra headers and fetch options.
 */
import type { ResolvedCommon } from './common-config.ts';
import {
  closedError,
  describe,
  ServiceAbAddonNotAvailableError,
  ServiceBillingError,
  ServiceError,
  ServiceNotFoundError,
  ServiceQuarantinedError,
  ServiceUnauthorizedError,
} from './errors.ts';
import { isObject } from './snapshot.ts';

export const USER_AGENT = 'svc-client-ts/0.5.0';

/**
 * What differs between the Node and the browser entry's requests: extra `fetch` options of
 * every request (Node names itself; a browser skips its HTTP cache, the client keeps its own).
 */
export type RequestInitOf = Omit<RequestInit, 'headers'> & { headers?: Record<string, string> };

/** The settings requests use; read at each request (a workload identity replaces `apiKey`). */
export type TransportConfig = Pick<
  ResolvedCommon,
  'baseUrl' | 'apiKey' | 'requestTimeoutMs' | 'fetch'
>;

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** No time limit (the stream), and the caller's own signal instead. */
  signal?: AbortSignal;
}

export class Transport {
  /**
   * @param config Read at each request: a workload identity's new key takes effect at once.
   * @param closed Aborted by `close()`: every request in flight ends.
   * @param init Extra `fetch` options of every request.
   */
  readonly #config: TransportConfig;
  readonly #closed: AbortSignal;
  readonly #init: RequestInitOf;

  constructor(config: TransportConfig, closed: AbortSignal, init: RequestInitOf) {
    this.#config = config;
    this.#closed = closed;
    this.#init = init;
  }

  /**
   * Sends one request for `operation`. Resolves with a 2xx or 304 answer; rejects with the
   * client error of any other answer ({@link errorOf}, its body consumed), or a
   * {@link ServiceError} when no answer arrives.
   */
  async send(path: string, operation: Operation, request: RequestOptions = {}): Promise<Response> {
    const config = this.#config;
    const closed = this.#closed;
    const init = this.#init;
    const method = request.method ?? 'GET';
    if (closed.aborted) throw closedError();
    // JSON unless the request says otherwise (the stream), problem+json included.
    const headers: Record<string, string> = {
      accept: 'application/json',
      'x-service-api-key': config.apiKey,
      ...init.headers,
      ...request.headers,
    };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const signal =
      request.signal ?? AbortSignal.any([closed, AbortSignal.timeout(config.requestTimeoutMs)]);
    let response: Response;
    try {
      response = await config.fetch(config.baseUrl + path, {
        ...init,
        method,
        headers,
        // No body: `JSON.stringify(undefined)` is `undefined`.
        body: JSON.stringify(request.body),
        signal,
        redirect: 'error',
      });
    } catch (error) {
      // (Its cause would only be the abort.)
      if (closed.aborted) throw closedError();
      const timedOut = (signal.reason as Error | undefined)?.name === 'TimeoutError';
      throw new ServiceError(
        `${method} ${path} ${timedOut ? `timed out after ${config.requestTimeoutMs} ms` : `failed: ${describe(error)}`}`,
        { cause: error },
      );
    }
    if (response.ok || response.status === 304) return response;
    throw await errorOf(response, operation);
  }
}

/** The body as JSON; a {@link ServiceError} when it cannot be read or is not JSON. */
export async function readJson(response: Response, what: string): Promise<unknown> {
  try {
    return JSON.parse(await response.text());
  } catch (error) {
    throw new ServiceError(`${what}: the answer is not JSON`, { cause: error });
  }
}

/** Which operation failed: decides how a 403 and a 429 read. */
export type Operation = 'sync' | 'stream' | 'evaluateAB' | 'write';

/**
 * The client error for a non-2xx answer (its body is consumed): by status, and for a 403 and a
 * 429 by the operation too. A public key refused a write is the Node entry's to say
 * (service-client.ts).
 */
async function errorOf(response: Response, operation: Operation): Promise<ServiceError> {
  const status = response.status;
  // The problem+json body's `code` and `detail`, when the answer has them.
  const body: unknown = await response.json().catch(() => undefined);
  const problem = isObject(body) ? body : {};
  const code = typeof problem.code === 'string' ? problem.code : undefined;
  const detail = typeof problem.detail === 'string' ? `: ${problem.detail}` : '';
  const message = `${operation}: HTTP ${status}${code ? ` ${code}` : ''}${detail}`;
  // A 429 of a sync is the quarantine (of a write: service-client.ts).
  const type =
    status === 403 && (operation === 'evaluateAB' || code === 'ab_addon_inactive')
      ? ServiceAbAddonNotAvailableError
      : status === 429
        ? operation === 'sync' || code === 'sync_quarantined'
          ? ServiceQuarantinedError
          : ServiceError
        : (ERROR_BY_STATUS[status] ?? ServiceError);
  const details = {
    status,
    code,
    retryAfter: status === 429 ? retryAfterSeconds(response.headers.get('retry-after')) : undefined,
  };
  return new type(message, details);
}

const ERROR_BY_STATUS: Record<number, typeof ServiceError> = {
  401: ServiceUnauthorizedError,
  402: ServiceBillingError,
  404: ServiceNotFoundError,
};

/** `Retry-After` as seconds: delta-seconds or an HTTP date; 1 when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number {
  if (/^\s*\d+\s*$/.test(header ?? '')) return Number(header);
  const at = Date.parse(header ?? '');
  return Number.isNaN(at) ? 1 : Math.max(0, Math.ceil((at - now) / 1000));
}
