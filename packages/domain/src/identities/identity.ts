/**
 * Workload identities: trust bindings that let a workload exchange the token its platform gives
 * it (Kubernetes, AWS, GCP, Azure, any OIDC issuer) for a short-lived API key of the usual
 * shape. The model only; the checks themselves sit behind the IdentityVerifier port.
 */
import type { KeyKind } from '../api-key-format.ts';
import type { SealedValue } from '../model.ts';

export const IDENTITY_METHODS = ['oidc', 'kubernetes', 'aws', 'gcp', 'azure'] as const;
export type IdentityMethod = (typeof IDENTITY_METHODS)[number];

/** Any OIDC issuer (GitHub Actions, GitLab, Dex, Keycloak, …). */
export interface OidcSettings {
  issuer: string;
  /** Null: OIDC discovery at `{issuer}/.well-known/openid-configuration`. */
  jwksUrl: string | null;
  audiences: string[];
  /** Pattern the `sub` claim must match; null: any subject. */
  subject: string | null;
  /** Claim name → pattern its (string) value must match. */
  claims: Record<string, string>;
}

/** Kubernetes service-account tokens, checked by a TokenReview on the cluster's api server. */
export interface KubernetesSettings {
  apiServer: string;
  /** PEM of the CA that signs the api server's certificate; null: the system's CAs. */
  caCert: string | null;
  /** Audiences the TokenReview asks for; empty: the api server's own. */
  audiences: string[];
  namespaces: string[];
  serviceAccounts: string[];
}

/** AWS IAM principals, proven by a signed `sts:GetCallerIdentity` request. */
export interface AwsSettings {
  /** 12-digit account ids. */
  accounts: string[];
  /** Patterns of IAM ARNs; empty: any principal of the accounts. */
  principalArns: string[];
  stsEndpoint: string;
  /** When set, the signed request must carry `X-Svc-Server-Id` with this value. */
  serverId: string | null;
}

/** Google-signed ID tokens (the metadata server's identity tokens). */
export interface GcpSettings {
  audience: string;
  /** Service-account emails. */
  serviceAccounts: string[];
  /** GCP project ids; empty: any. */
  projects: string[];
  /** Null: Google's keys. */
  jwksUrl: string | null;
}

/** Azure managed identities (Entra ID tokens from the instance metadata service). */
export interface AzureSettings {
  tenantId: string;
  audience: string;
  /** Object ids (`oid`) of the managed identities. */
  principalIds: string[];
  /** Null: the tenant's Entra ID keys. */
  jwksUrl: string | null;
}

export interface MethodSettings {
  oidc: OidcSettings;
  kubernetes: KubernetesSettings;
  aws: AwsSettings;
  gcp: GcpSettings;
  azure: AzureSettings;
}

/** The method and its settings, one of five. */
export type IdentityBinding = {
  [M in IdentityMethod]: { method: M; settings: MethodSettings[M] };
}[IdentityMethod];

export const IDENTITY_TTL_MIN_S = 60;
export const IDENTITY_TTL_MAX_S = 43_200;
export const IDENTITY_TTL_DEFAULT_S = 900;

export interface IdentityRecord {
  id: string;
  workspaceId: string;
  projectId: string;
  /** What minted keys see, as for static keys: the service, or null for project level. */
  serviceId: string | null;
  kind: KeyKind;
  name: string;
  /** Lifetime of each minted key, in seconds. */
  ttlSeconds: number;
  binding: IdentityBinding;
  /** The Kubernetes reviewer token, sealed at rest; null when none. */
  sealedSecret: SealedValue | null;
  createdAt: number;
  updatedAt: number;
  lastUsedAt: number | null;
}

/** What a workload presents at the exchange. */
export type WorkloadCredential =
  { type: 'token'; token: string } | { type: 'aws'; request: SignedAwsRequest };

/** A SigV4-signed `GetCallerIdentity` request, made by the workload and forwarded as it is. */
export interface SignedAwsRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body, decoded from base64. */
  body: string;
}

/** Who the verifier found: shown in the audit log. */
export interface VerifiedWorkload {
  subject: string;
}

/** The sealing context of an identity's secret: bound to the identity, so it cannot be moved. */
export function identitySecretContext(identityId: string): string {
  return `identity:${identityId}`;
}
