/**
 * The client's errors, one class per row of the spec's exception table. Every error the client
 * raises for a service condition is a {@link ServiceError}; a bad configuration or argument is a
 * plain `TypeError` (the spec's IllegalArgumentException), raised before any request.
 *
 * Each class states its `name`: minifiers rename classes, and `name` is what a browser's console
 * shows (`ServiceUnauthorizedError: sync: HTTP 401 …`).
 */

/** What the server said in its problem+json body, when it answered with one. */
export interface ServiceErrorDetails {
  /** The HTTP status, when the error is an HTTP answer. */
  status?: number;
  /** The contract's error code (`unauthorized`, `secret_not_found`, `rate_limited`, …). */
  code?: string;
  /** The underlying error (a network failure, a JSON parse error, …). */
  cause?: unknown;
  /** A 429 answer's `Retry-After`, in seconds. */
  retryAfter?: number;
}

/** Details of a 429 answer (of {@link ServiceQuarantinedError}, {@link ServiceRateLimitedError}). */
export interface RetryAfterDetails extends ServiceErrorDetails {
  /** Seconds to wait before trying again (the `Retry-After` header). */
  retryAfter: number;
}

/**
 * Base of every client error. Thrown as itself for any other transport, protocol or
 * JSON-decoding failure (for example a network error, a 400 `invalid_request` or a 409
 * `version_conflict` of a write, or a 5xx).
 */
export class ServiceError extends Error {
  override name = 'ServiceError';
  /** The HTTP status, when the error is an HTTP answer. */
  readonly status: number | undefined;
  /** The contract's error code from the problem+json body, when there was one. */
  readonly code: string | undefined;
  /** Seconds to wait before trying again: a 429 answer's `Retry-After`. */
  readonly retryAfter: number | undefined;

  /**
   * @param message What failed (never a secret value or an API key).
   * @param details What the answer said; `retryAfter` is required for the 429 classes.
   */
  constructor(message: string, details: ServiceErrorDetails = {}) {
    // `cause` only when `details` has one (Error reads nothing else of its options).
    super(message, details);
    this.status = details.status;
    this.code = details.code;
    this.retryAfter = details.retryAfter;
  }
}

/** What a network call of a closed client fails with. */
export function closedError(): ServiceError {
  return new ServiceError('the client is closed');
}

/** An answer without the contract's shape: `what` names the operation and part (`sync: flag a`). */
export function offContract(what: string): ServiceError {
  return new ServiceError(`${what} is off the contract`);
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
  override name = 'ServiceInitError';

  /** @param cause Why the initial sync failed; also in the message. */
  constructor(cause: unknown) {
    super(`initial sync failed: ${describe(cause)}`, { cause });
  }
}

/** HTTP 401: the API key is wrong, revoked, or belongs to another workspace. */
export class ServiceUnauthorizedError extends ServiceError {
  override name = 'ServiceUnauthorizedError';
}

/**
 * HTTP 404: the workspace in the base URL does not exist, or a write's target is missing
 * (`code` is then `secret_not_found` or `version_not_found`).
 */
export class ServiceNotFoundError extends ServiceError {
  override name = 'ServiceNotFoundError';
}

/** `getSecret` or a write operation was used with a public key (`svp_…`); nothing was sent. */
export class ServicePublicKeyError extends ServiceError {
  override name = 'ServicePublicKeyError';

  /** @param operation The refused call, such as `setSecret`. */
  constructor(operation: string) {
    super(`${operation} needs a secret key (svs_…); this client holds a public key`, {
      code: 'public_key_forbidden',
    });
  }
}

/** `getSecret` for a key that is not in the client's cache. */
export class ServiceSecretNotFoundError extends ServiceError {
  override name = 'ServiceSecretNotFoundError';
  /** The secret's key. */
  readonly key: string;

  /** @param key The secret's key. */
  constructor(key: string) {
    super(`secret "${key}" is not in the cache`, { code: 'secret_not_found' });
    this.key = key;
  }
}

/** HTTP 403 on `evaluateAB`: the project's AB Testing add-on is not active. */
export class ServiceAbAddonNotAvailableError extends ServiceError {
  override name = 'ServiceAbAddonNotAvailableError';
}

/** HTTP 402 on `evaluateAB` or a write: the workspace's billing is overdue. */
export class ServiceBillingError extends ServiceError {
  override name = 'ServiceBillingError';
}

/** HTTP 429 on a write: the key's write rate limit is exhausted (`retryAfter` seconds). */
export class ServiceRateLimitedError extends ServiceError {
  override name = 'ServiceRateLimitedError';
  /** Seconds to wait before the next write (the `Retry-After` header). */
  declare readonly retryAfter: number;
}

/**
 * HTTP 429 on a sync: the key synced too often and is quarantined. The client makes no sync
 * request until `retryAfter` seconds have passed; a `sync()` before then fails at once.
 */
export class ServiceQuarantinedError extends ServiceError {
  override name = 'ServiceQuarantinedError';
  /** Seconds until syncs are accepted again. */
  declare readonly retryAfter: number;
}
