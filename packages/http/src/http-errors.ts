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
