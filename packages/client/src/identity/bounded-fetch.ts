/**
 * The requests of the exchange and of the token sources (metadata servers): a time limit, the
 * client's `close()` ending them, no redirects, and an answer read up to a size limit (a
 * metadata server or an exchange never sends megabytes; a broken proxy might).
 */
import { describe, ServiceError } from '../errors.ts';

/** The largest answer read: tokens and exchange answers are a few KiB. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface FetchContext {
  fetch: typeof globalThis.fetch;
  requestTimeoutMs: number;
  /** Aborted when the client closes. */
  signal: AbortSignal;
}

export interface BoundedAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * Sends `init` to `url` and reads the whole answer; a {@link ServiceError} naming `what` when
 * no answer arrives in time, or when it is larger than {@link MAX_ANSWER_BYTES}.
 */
export async function boundedFetch(
  context: FetchContext,
  what: string,
  url: string,
  init: RequestInit,
): Promise<BoundedAnswer> {
  const signal = AbortSignal.any([context.signal, AbortSignal.timeout(context.requestTimeoutMs)]);
  try {
    const response = await context.fetch(url, { ...init, signal, redirect: 'error' });
    return {
      status: response.status,
      headers: response.headers,
      text: await readText(response, what),
    };
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    const reason = context.signal.aborted
      ? 'the client is closed'
      : (signal.reason as Error | undefined)?.name === 'TimeoutError'
        ? `timed out after ${context.requestTimeoutMs} ms`
        : `failed: ${describe(error)}`;
    throw new ServiceError(`${what} ${reason}`, { cause: error });
  }
}

async function readText(response: Response, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw tooLarge(what);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) throw tooLarge(what);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(what: string): ServiceError {
  return new ServiceError(`${what}: the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
}
