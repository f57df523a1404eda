/**
 * Refusals of the HTTP adapter itself (not the domain's): the server cannot serve this now.
 * They carry a problem code of their own and, where a retry makes sense, when to retry.
 */
export class ServiceUnavailableError extends Error {
  readonly code = 'unavailable';
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
  }
}

/** A client holds as many streams as it may (429 `too_many_streams`). */
export class TooManyStreamsError extends Error {
  readonly code = 'too_many_streams';
  constructor(
    message: string,
    readonly retryAfterSeconds = 10,
  ) {
    super(message);
  }
}

/** A known path asked with a method it does not have (405 with `Allow`). */
export class MethodNotAllowedError extends Error {
  readonly code = 'method_not_allowed';
  constructor(
    method: string,
    readonly allow: readonly string[],
  ) {
    super(`${method} is not allowed here; use ${allow.join(', ')}`);
  }
}
