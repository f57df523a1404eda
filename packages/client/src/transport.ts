/**
 * Requests to the service over `fetch`: the API key header, a time limit per request, and the
 * translation of problem+json answers into the client's errors. Platform-free: each entry passes
 * its own extra headers and fetch options.
 */
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

export const USER_AGENT = 'svc-client-ts/0.5.0';

/** What differs between the Node and the browser entry's requests. */
export interface RequestPlatform {
  /** Headers of every request (Node names itself; a browser sets its own user agent). */
  headers: Record<string, string>;
  /** Headers of the stream request only. */
  streamHeaders: Record<string, string>;
  /** Extra `fetch` options (a browser skips its HTTP cache: the client keeps its own). */
  init: RequestInit;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  requestTimeoutMs: number;
  fetch: typeof globalThis.fetch;
  /** Aborted by `close()`: every request in flight ends. */
  closed: AbortSignal;
  platform: RequestPlatform;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** No time limit (the stream), and the caller's own signal instead. */
  signal?: AbortSignal;
}

export class Transport {
  constructor(private readonly options: TransportOptions) {}

  /** Sends `apiKey` from now on (a workload identity's new key). */
  rekey(apiKey: string): void {
    this.options.apiKey = apiKey;
  }

  /** Sends one request; rejects with a {@link ServiceError} when no answer arrives. */
  async send(path: string, request: RequestOptions = {}): Promise<Response> {
    const { closed, requestTimeoutMs, platform } = this.options;
    const method = request.method ?? 'GET';
    if (closed.aborted) throw closedError();
    const headers: Record<string, string> = {
      'x-service-api-key': this.options.apiKey,
      ...platform.headers,
      ...request.headers,
    };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const signal =
      request.signal ?? AbortSignal.any([closed, AbortSignal.timeout(requestTimeoutMs)]);
    try {
      return await this.options.fetch(this.options.baseUrl + path, {
        ...platform.init,
        method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal,
        redirect: 'error',
      });
    } catch (error) {
      if (closed.aborted) throw closedError(error);
      const timedOut = (signal.reason as Error | undefined)?.name === 'TimeoutError';
      throw new ServiceError(
        `${method} ${path} ${timedOut ? `timed out after ${requestTimeoutMs} ms` : `failed: ${describe(error)}`}`,
        { cause: error },
      );
    }
  }

  /** The body as JSON; a {@link ServiceError} when it cannot be read or is not JSON. */
  async json(response: Response, what: string): Promise<unknown> {
    try {
      return JSON.parse(await response.text());
    } catch (error) {
      throw new ServiceError(`${what}: the answer is not JSON: ${describe(error)}`, {
        status: response.status,
        cause: error,
      });
    }
  }
}

/** Which operation failed: decides how a 403 and a 429 read. */
export type Operation = 'sync' | 'stream' | 'evaluateAB' | 'write';

/**
 * The client error for a non-2xx answer (its body is consumed). The write API's own errors (a
 * public key refused, the write rate limit) are the Node entry's (service-client.ts).
 */
export async function errorOf(response: Response, operation: Operation): Promise<ServiceError> {
  const { code, detail } = await problemOf(response);
  const status = response.status;
  const message = `${operation}: HTTP ${status}${code ? ` ${code}` : ''}${detail ? `: ${detail}` : ''}`;
  const details = { status, code };
  if (status === 403 && (operation === 'evaluateAB' || code === 'ab_addon_inactive')) {
    return new ServiceAbAddonNotAvailableError(message, details);
  }
  if (status === 429 && (operation === 'sync' || code === 'sync_quarantined')) {
    const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
    return new ServiceQuarantinedError(message, { ...details, retryAfter });
  }
  return new (ERROR_BY_STATUS[status] ?? ServiceError)(message, details);
}

const ERROR_BY_STATUS: Record<number, typeof ServiceError | undefined> = {
  401: ServiceUnauthorizedError,
  402: ServiceBillingError,
  404: ServiceNotFoundError,
};

/** The problem+json body's `code` and `detail`, when the answer has them. */
async function problemOf(response: Response): Promise<{ code?: string; detail?: string }> {
  const body: unknown = await response.json().catch(() => undefined);
  const { code, detail } = ((typeof body === 'object' && body) || {}) as Record<string, unknown>;
  return {
    code: typeof code === 'string' ? code : undefined,
    detail: typeof detail === 'string' ? detail : undefined,
  };
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date; 1 when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number {
  if (header === null) return 1;
  if (/^\s*\d+\s*$/.test(header)) return Number(header);
  const at = Date.parse(header);
  return Number.isNaN(at) ? 1 : Math.max(0, Math.ceil((at - now) / 1000));
}
