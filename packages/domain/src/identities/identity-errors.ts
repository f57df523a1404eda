/** Why an exchange failed: a check the workload's token did not pass, or an upstream that did not answer. */
import { DomainError, UnauthorizedError } from '../errors.ts';

/**
 * The check that failed, named in the 401's `detail` (`issuer: …`). `identity` (no such
 * identity) and `server_id` (the AWS request lacks the signed `X-Svc-Server-Id`) extend the
 * contract's list.
 */
export type IdentityCheck =
  | 'identity'
  | 'issuer'
  | 'audience'
  | 'expired'
  | 'signature'
  | 'subject'
  | 'not_allowed'
  | 'upstream_rejected'
  | 'server_id';

/** A workload token failed a check: 401, with a detail that names the check and never the token. */
export class IdentityRejectedError extends UnauthorizedError {
  constructor(
    readonly check: IdentityCheck,
    reason: string,
  ) {
    super(`${check}: ${reason}`);
  }
}

/** The JWKS, TokenReview or STS endpoint could not be reached (or answered nonsense): 502. */
export class UpstreamUnavailableError extends DomainError {
  readonly code = 'upstream_unavailable';
}
