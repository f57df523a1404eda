/**
 * JWT verification for the token methods (OIDC, GCP, Azure), over jose: keys from the issuer's
 * JWKS, fetched once and cached, fetched again when a token names an unknown `kid` (key
 * rotation); RS256 and ES256 only; `exp`/`nbf`/`iat` with 60 s of leeway. Each failure becomes
 * the check it failed, named in the 401; an unreachable JWKS is a 502.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { IdentityRejectedError, UpstreamUnavailableError } from '@svc/domain';

export const JWT_ALGORITHMS = ['RS256', 'ES256'];
export const CLOCK_LEEWAY_S = 60;

export interface JwksOptions {
  /** Deadline of one JWKS fetch. */
  timeoutMs: number;
  /** How long fetched keys are used before they are fetched again (default 10 min). */
  cacheMaxAgeMs?: number;
  /**
   * Least time between two fetches caused by unknown `kid`s (default 5 s), so a flood of
   * forged tokens cannot make the server hammer the issuer.
   */
  cooldownMs?: number;
}

/** Key sets kept per JWKS URL; past this many the oldest is dropped. */
const JWKS_CACHE_MAX = 512;

export interface JwtExpectations {
  /** Accepted `iss` values (exact). */
  issuers: string[];
  /** Accepted `aud` values: one of them must be in the token's. */
  audiences: string[];
}

export class JwtChecks {
  private readonly keySets = new Map<string, JWTVerifyGetKey>();

  constructor(private readonly options: JwksOptions) {}

  /** The verified claims; throws IdentityRejectedError or UpstreamUnavailableError. */
  async verify(token: string, jwksUrl: URL, expected: JwtExpectations): Promise<JWTPayload> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keySet(jwksUrl), {
        issuer: expected.issuers,
        audience: expected.audiences,
        algorithms: JWT_ALGORITHMS,
        clockTolerance: CLOCK_LEEWAY_S,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw rejection(error, jwksUrl);
    }
    // jose checks `iat` only against a maximum age: a token from the future is refused here.
    if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + CLOCK_LEEWAY_S) {
      throw new IdentityRejectedError('expired', 'the token was issued in the future (iat)');
    }
    return payload;
  }

  private keySet(url: URL): JWTVerifyGetKey {
    let keySet = this.keySets.get(url.href);
    if (!keySet) {
      if (this.keySets.size >= JWKS_CACHE_MAX) {
        this.keySets.delete(this.keySets.keys().next().value!);
      }
      keySet = createRemoteJWKSet(url, {
        timeoutDuration: this.options.timeoutMs,
        cacheMaxAge: this.options.cacheMaxAgeMs ?? 10 * 60_000,
        cooldownDuration: this.options.cooldownMs ?? 5_000,
      });
      this.keySets.set(url.href, keySet);
    }
    return keySet;
  }
}

/** jose's error as the check that failed, or as an unreachable JWKS. */
function rejection(error: unknown, jwksUrl: URL): Error {
  if (error instanceof errors.JWTExpired) {
    return new IdentityRejectedError('expired', 'the token has expired (exp)');
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') {
      return new IdentityRejectedError('issuer', 'the token is not from the expected issuer (iss)');
    }
    if (error.claim === 'aud') {
      return new IdentityRejectedError(
        'audience',
        'the token is not for an expected audience (aud)',
      );
    }
    if (error.claim === 'nbf') {
      return new IdentityRejectedError('expired', 'the token is not valid yet (nbf)');
    }
    return new IdentityRejectedError('signature', `the token's ${error.claim} claim is invalid`);
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return new IdentityRejectedError(
      'signature',
      'no key of the issuer has the token’s kid, also after fetching the keys again',
    );
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return new IdentityRejectedError('signature', 'the token’s signature does not verify');
  }
  if (
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JOSEAlgNotAllowed ||
    error instanceof errors.JOSENotSupported
  ) {
    return new IdentityRejectedError('signature', `not an RS256/ES256 JWT: ${error.message}`);
  }
  if (error instanceof errors.JWKSTimeout) {
    return new UpstreamUnavailableError(`JWKS ${jwksUrl.href}: no answer in time`, {
      cause: error,
    });
  }
  // Fetch failures (TypeError), a non-200 answer, a body that is not a key set.
  const reason =
    error instanceof Error
      ? error.cause instanceof Error
        ? error.cause.message
        : error.message
      : 'unknown error';
  return new UpstreamUnavailableError(`JWKS ${jwksUrl.href}: ${reason}`, { cause: error });
}
