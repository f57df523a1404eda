/**
 * The client's errors, one class per row of the spec's exception table. Every error the client
 * raises for a service condition is a {@link ServiceError}; a bad configuration or argument is a
 * plain `TypeError` (the spec's IllegalArgumentException), raised before any request.
 */

/** What the server said in its problem+json body, when it answered with one. */
export interface ServiceErrorDetails {
  /** The HTTP status, when the error is an HTTP answer. */
  status?: number;
  /** The contract's error code (`unauthorized`, `secret_not_found`, `rate_limited`, …). */
  code?: string;
  /** The underlying error (a network failure, a JSON parse error, …). */
  cause?: unknown;
}

/**
 * Base of every client error. Thrown as itself for any other transport, protocol or
 * JSON-decoding failure (for example a network error, a 400 `invalid_request` or a 409
 * `version_conflict` of a write, or a 5xx).
 */
export class ServiceError extends Error {
  /** The HTTP status, when the error is an HTTP answer. */
  readonly status: number | undefined;
  /** The contract's error code from the problem+json body, when there was one. */
  readonly code: string | undefined;

  /** @param message What failed (never a secret value or an API key). */
  constructor(message: string, details: ServiceErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status;
    this.code = details.code;
  }
}

/** What a network call of a closed client fails with. */
export function closedError(cause?: unknown): ServiceError {
  return new ServiceError('the client is closed', { cause });
}

/** An error's message, with its cause's when it has one. */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return error.message + cause;
}

/**
 * `ServiceClient.create()` failed: the initial sync did not succeed. `cause` holds the
 * underlying error (a {@link ServiceUnauthorizedError}, {@link ServiceNotFoundError},
 * {@link ServiceQuarantinedError} or a plain {@link ServiceError} for network failures).
 */
export class ServiceInitError extends ServiceError {
  /** @param cause Why the initial sync failed; also in the message. */
  constructor(cause: unknown) {
    super(`initial sync failed: ${describe(cause)}`, { cause });
  }
}

/** HTTP 401: the API key is wrong, revoked, or belongs to another workspace. */
export class ServiceUnauthorizedError extends ServiceError {}

/**
 * HTTP 404: the workspace in the base URL does not exist, or a write's target is missing
 * (`code` is then `secret_not_found` or `version_not_found`).
 */
export class ServiceNotFoundError extends ServiceError {}

/** `getSecret` or a write operation was used with a public key (`svp_…`); nothing was sent. */
export class ServicePublicKeyError extends ServiceError {
  /** @param operation The refused call, such as `setSecret`. */
  constructor(operation: string) {
    super(`${operation} needs a secret key (svs_…); this client holds a public key`, {
      code: 'public_key_forbidden',
    });
  }
}

/** `getSecret` for a key that is not in the client's cache. */
export class ServiceSecretNotFoundError extends ServiceError {
  /** The secret's key. */
  readonly key: string;

  /** @param key The secret's key. */
  constructor(key: string) {
    super(`secret "${key}" is not in the cache`, { code: 'secret_not_found' });
    this.key = key;
  }
}

/** HTTP 403 on `evaluateAB`: the project's AB Testing add-on is not active. */
export class ServiceAbAddonNotAvailableError extends ServiceError {}

/** HTTP 402 on `evaluateAB` or a write: the workspace's billing is overdue. */
export class ServiceBillingError extends ServiceError {}

/** Details of a 429 answer. */
export interface RetryAfterDetails extends ServiceErrorDetails {
  /** Seconds to wait before trying again (the `Retry-After` header). */
  retryAfter: number;
}

/** HTTP 429 on a write: the key's write rate limit is exhausted. */
export class ServiceRateLimitedError extends ServiceError {
  /** Seconds to wait before the next write (the `Retry-After` header). */
  readonly retryAfter: number;

  /** @param details The answer's status and code, and its `Retry-After` in seconds. */
  constructor(message: string, details: RetryAfterDetails) {
    super(message, details);
    this.retryAfter = details.retryAfter;
  }
}

/**
 * HTTP 429 on a sync: the key synced too often and is quarantined. The client makes no sync
 * request until `retryAfter` seconds have passed; a `sync()` before then fails at once.
 */
export class ServiceQuarantinedError extends ServiceError {
  /** Seconds until syncs are accepted again. */
  readonly retryAfter: number;

  /** @param details The answer's status and code, and its `Retry-After` in seconds. */
  constructor(message: string, details: RetryAfterDetails) {
    super(message, details);
    this.retryAfter = details.retryAfter;
  }
}
