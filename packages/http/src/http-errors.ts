/** Codes the http adapter answers with on its own, beside the domain's. */
export type HttpProblemCode = 'method_not_allowed' | 'unavailable' | 'too_many_streams';

/**
 * A refusal of the HTTP adapter itself, not the domain's (the server cannot serve this now, or
 * not this way), with the headers its answer needs (`Retry-After`, `Allow`).
 */
export class HttpRefusal extends Error {
  constructor(
    readonly code: HttpProblemCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** 503: not now (starting, shutting down); retry after `retryAfterSeconds`. */
export function unavailable(message: string, retryAfterSeconds = 1): HttpRefusal {
  return new HttpRefusal('unavailable', message, { 'Retry-After': String(retryAfterSeconds) });
}

/** 429: the client (or the server) holds as many streams as it may; streams end and free up. */
export function tooManyStreams(message: string, retryAfterSeconds = 10): HttpRefusal {
  return new HttpRefusal('too_many_streams', message, {
    'Retry-After': String(retryAfterSeconds),
  });
}

/** 405: a known path asked with a method it does not have. */
export function methodNotAllowed(method: string, allow: readonly string[]): HttpRefusal {
  const methods = allow.join(', ');
  return new HttpRefusal('method_not_allowed', `${method} is not allowed here; use ${methods}`, {
    Allow: methods,
  });
}
