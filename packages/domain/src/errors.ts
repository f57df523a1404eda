/**
 * Typed domain errors. Each has a stable `code` (the wire contract's error code) and no HTTP
 * status: only the http adapter maps codes to statuses.
 */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'billing_overdue'
  | 'ab_addon_inactive'
  | 'public_key_forbidden'
  | 'not_found'
  | 'secret_not_found'
  | 'version_not_found'
  | 'version_conflict'
  | 'conflict'
  | 'payload_too_large'
  | 'rate_limited'
  | 'sync_quarantined'
  | 'upstream_unavailable'
  | 'storage_unavailable';

export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;
}

/** Input failed validation; `field` names the offending field (dotted path). */
export class ValidationError extends DomainError {
  readonly code = 'invalid_request';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

export class UnauthorizedError extends DomainError {
  readonly code = 'unauthorized';
  constructor(message = 'missing, malformed, revoked or unknown API key') {
    super(message);
  }
}

export class NotFoundError extends DomainError {
  readonly code = 'not_found';
}

export class ConflictError extends DomainError {
  readonly code = 'conflict';
}

export class BillingOverdueError extends DomainError {
  readonly code = 'billing_overdue';
  constructor(message = 'the workspace billing is overdue') {
    super(message);
  }
}

export class AbAddonInactiveError extends DomainError {
  readonly code = 'ab_addon_inactive';
  constructor(message = 'the AB Testing add-on is not active on this project') {
    super(message);
  }
}

export class PublicKeyForbiddenError extends DomainError {
  readonly code = 'public_key_forbidden';
  constructor(message = 'a public key cannot write secrets') {
    super(message);
  }
}

export class SecretNotFoundError extends DomainError {
  readonly code = 'secret_not_found';
}

export class VersionNotFoundError extends DomainError {
  readonly code = 'version_not_found';
}

export class VersionConflictError extends DomainError {
  readonly code = 'version_conflict';
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`expected version ${expected}, current version is ${actual}`);
  }
}

export class PayloadTooLargeError extends DomainError {
  readonly code = 'payload_too_large';
}

/** A write over the per-key rate limit; retry after `retryAfterSeconds`. */
export class RateLimitedError extends DomainError {
  readonly code = 'rate_limited';
  constructor(readonly retryAfterSeconds: number) {
    super(`write rate limit reached; retry after ${retryAfterSeconds} s`);
  }
}

/** A key that synced too often is quarantined for `retryAfterSeconds`. */
export class SyncQuarantinedError extends DomainError {
  readonly code = 'sync_quarantined';
  constructor(readonly retryAfterSeconds: number) {
    super(`this key synced too often and is quarantined; retry after ${retryAfterSeconds} s`);
  }
}

/**
 * The database cannot be reached (restarting, network, connections cut): the operation did not
 * happen; retry after `retryAfterSeconds`. Reads served from memory are not affected.
 */
export class StorageUnavailableError extends DomainError {
  readonly code = 'storage_unavailable';
  constructor(
    readonly retryAfterSeconds = 1,
    options?: { cause?: unknown },
  ) {
    super('the database cannot be reached right now; retry shortly', options);
  }
}
