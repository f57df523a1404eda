/**
 * Requests to the service over `fetch`: the API key header, a time limit per request, and the
 * translation of problem+json answers into the client's errors.
 */
import {
  ServiceAbAddonNotAvailableError,
  ServiceBillingError,
  ServiceError,
  ServiceNotFoundError,
  ServicePublicKeyError,
  ServiceQuarantinedError,
  ServiceRateLimitedError,
  ServiceUnauthorizedError,
} from './errors.ts';

export const USER_AGENT = 'svc-client-ts/0.5.0';

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  requestTimeoutMs: number;
  fetch: typeof globalThis.fetch;
  /** Aborted by `close()`: every request in flight ends. */
  closed: AbortSignal;
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

  url(path: string): string {
    return `${this.options.baseUrl}${path}`;
  }

  /** Sends one request; rejects with a {@link ServiceError} when no answer arrives. */
  async send(path: string, request: RequestOptions = {}): Promise<Response> {
    const { closed } = this.options;
    if (closed.aborted) throw new ServiceError('the client is closed');
    const headers: Record<string, string> = {
      'x-service-api-key': this.options.apiKey,
      'user-agent': USER_AGENT,
      ...request.headers,
    };
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    const signal =
      request.signal ??
      AbortSignal.any([closed, AbortSignal.timeout(this.options.requestTimeoutMs)]);
    try {
      return await this.options.fetch(this.url(path), {
        method: request.method ?? 'GET',
        headers,
        body,
        signal,
        redirect: 'error',
      });
    } catch (error) {
      if (closed.aborted) throw new ServiceError('the client is closed', { cause: error });
      if (signal.aborted && signal.reason instanceof DOMException) {
        if (signal.reason.name === 'TimeoutError') {
          throw new ServiceError(
            `${request.method ?? 'GET'} ${path} timed out after ${this.options.requestTimeoutMs} ms`,
            { cause: error },
          );
        }
      }
      throw new ServiceError(`${request.method ?? 'GET'} ${path} failed: ${describe(error)}`, {
        cause: error,
      });
    }
  }

  /** The body as JSON; a {@link ServiceError} when it is not JSON. */
  async json(response: Response, what: string): Promise<unknown> {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new ServiceError(`${what}: reading the response failed: ${describe(error)}`, {
        cause: error,
      });
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ServiceError(`${what}: the response is not JSON`, {
        status: response.status,
        cause: error,
      });
    }
  }
}

/** Which operation failed: decides how a 403 and a 429 read. */
export type Operation = 'sync' | 'stream' | 'evaluateAB' | 'write';

interface Problem {
  code?: string;
  detail?: string;
  title?: string;
}

/** The client error for a non-2xx answer (its body is consumed). */
export async function errorOf(response: Response, operation: Operation): Promise<ServiceError> {
  const problem = await problemOf(response);
  const status = response.status;
  const code = problem.code;
  const message = `${operation}: HTTP ${status}${code ? ` ${code}` : ''}${problem.detail ? `: ${problem.detail}` : ''}`;
  const details = { status, code };
  switch (status) {
    case 401:
      return new ServiceUnauthorizedError(message, details);
    case 402:
      return new ServiceBillingError(message, details);
    case 403:
      if (code === 'public_key_forbidden') return new ServicePublicKeyError(operation);
      if (operation === 'evaluateAB' || code === 'ab_addon_inactive') {
        return new ServiceAbAddonNotAvailableError(message, details);
      }
      return new ServiceError(message, details);
    case 404:
      return new ServiceNotFoundError(message, details);
    case 429: {
      const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
      if (operation === 'sync' || code === 'sync_quarantined') {
        return new ServiceQuarantinedError(message, { ...details, retryAfter });
      }
      return new ServiceRateLimitedError(message, { ...details, retryAfter });
    }
    default:
      return new ServiceError(message, details);
  }
}

async function problemOf(response: Response): Promise<Problem> {
  try {
    const text = await response.text();
    const body: unknown = JSON.parse(text);
    if (typeof body !== 'object' || body === null) return {};
    const { code, detail, title } = body as Record<string, unknown>;
    return {
      code: typeof code === 'string' ? code : undefined,
      detail: typeof detail === 'string' ? detail : undefined,
      title: typeof title === 'string' ? title : undefined,
    };
  } catch {
    return {};
  }
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date; 1 when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number {
  if (header === null) return 1;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Math.max(0, Number(trimmed));
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return 1;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

export function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
