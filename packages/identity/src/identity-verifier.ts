/**
 * The server's IdentityVerifier: one verifier per method behind the domain's port, calling only
 * the upstreams the identity names (or the platform's defaults), with a deadline on each call.
 */
import type {
  IdentityMethod,
  IdentityPolicy,
  IdentityVerifier,
  MethodSettings,
  VerificationRequest,
  VerifiedWorkload,
  WorkloadCredential,
} from '@svc/domain';
import { verifyAws } from './aws-method.ts';
import { JwtChecks } from './jwt-checks.ts';
import { verifyKubernetes } from './kubernetes-method.ts';
import { OidcDiscovery } from './oidc-discovery.ts';
import { verifyAzure, verifyGcp, verifyOidc } from './token-methods.ts';

export interface IdentityVerifierOptions {
  policy: IdentityPolicy;
  /** Deadline of each upstream call (JWKS, discovery, TokenReview, STS); default 5 s. */
  timeoutMs?: number;
  /** How long JWKS keys are used before they are fetched again; default 10 min. */
  jwksCacheMaxAgeMs?: number;
  /** Least time between JWKS fetches caused by unknown `kid`s; default 5 s. */
  jwksCooldownMs?: number;
}

type MethodVerifier<M extends IdentityMethod> = (
  settings: MethodSettings[M],
  credential: WorkloadCredential,
  reviewerToken: string | null,
) => Promise<VerifiedWorkload>;

export function createIdentityVerifier(options: IdentityVerifierOptions): IdentityVerifier {
  const timeoutMs = options.timeoutMs ?? 5000;
  const jwt = new JwtChecks({
    timeoutMs,
    ...(options.jwksCacheMaxAgeMs === undefined
      ? {}
      : { cacheMaxAgeMs: options.jwksCacheMaxAgeMs }),
    ...(options.jwksCooldownMs === undefined ? {} : { cooldownMs: options.jwksCooldownMs }),
  });
  const discovery = new OidcDiscovery({ policy: options.policy, timeoutMs });

  // A method without a verifier is a type error.
  const methods: { [M in IdentityMethod]: MethodVerifier<M> } = {
    oidc: (settings, credential) => verifyOidc(jwt, discovery, settings, tokenOf(credential)),
    kubernetes: (settings, credential, reviewerToken) =>
      verifyKubernetes(settings, tokenOf(credential), reviewerToken, timeoutMs),
    aws: (settings, credential) => {
      if (credential.type !== 'aws') throw new TypeError('an aws identity takes a signed request');
      return verifyAws(settings, credential.request, timeoutMs);
    },
    gcp: (settings, credential) => verifyGcp(jwt, settings, tokenOf(credential)),
    azure: (settings, credential) => verifyAzure(jwt, settings, tokenOf(credential)),
  };

  return {
    verify({ binding, credential, reviewerToken }: VerificationRequest) {
      const verify = methods[binding.method] as MethodVerifier<typeof binding.method>;
      return verify(binding.settings, credential, reviewerToken);
    },
  };
}

/** The exchange has checked the credential's type against the method already. */
function tokenOf(credential: WorkloadCredential): string {
  if (credential.type !== 'token') throw new TypeError('this method takes a token');
  return credential.token;
}
