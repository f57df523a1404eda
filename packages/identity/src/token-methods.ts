/**
 * The three JWT methods: any OIDC issuer, GCP (Google-signed ID tokens) and Azure (Entra ID
 * tokens of managed identities). Each says which JWKS and issuers to trust, then what the
 * verified claims must hold.
 */
import {
  IdentityRejectedError,
  type AzureSettings,
  type GcpSettings,
  type OidcSettings,
  type VerifiedWorkload,
} from '@svc/domain';
import { checkSubjectAndClaims, shown } from './claim-patterns.ts';
import type { JwtChecks } from './jwt-checks.ts';
import type { OidcDiscovery } from './oidc-discovery.ts';

export const GOOGLE_JWKS_URL = 'https://www.googleapis.com/oauth2/v3/certs';
/** Google ID tokens name either form (Google's "Validate an ID token"). */
export const GOOGLE_ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];

export function azureJwksUrl(tenantId: string): string {
  return `https://login.microsoftonline.com/${tenantId}/discovery/v2.0/keys`;
}

/** v1 tokens (what the instance metadata service gives) and v2 tokens of the tenant. */
export function azureIssuers(tenantId: string): string[] {
  return [
    `https://sts.windows.net/${tenantId}/`,
    `https://login.microsoftonline.com/${tenantId}/v2.0`,
  ];
}

export async function verifyOidc(
  jwt: JwtChecks,
  discovery: OidcDiscovery,
  settings: OidcSettings,
  token: string,
): Promise<VerifiedWorkload> {
  const jwksUrl =
    settings.jwksUrl === null
      ? await discovery.jwksUrl(settings.issuer)
      : new URL(settings.jwksUrl);
  const payload = await jwt.verify(token, jwksUrl, {
    issuers: [settings.issuer],
    audiences: settings.audiences,
  });
  return { subject: checkSubjectAndClaims(settings, payload) };
}

export async function verifyGcp(
  jwt: JwtChecks,
  settings: GcpSettings,
  token: string,
): Promise<VerifiedWorkload> {
  const payload = await jwt.verify(token, new URL(settings.jwksUrl ?? GOOGLE_JWKS_URL), {
    issuers: GOOGLE_ISSUERS,
    audiences: [settings.audience],
  });
  const email = typeof payload.email === 'string' ? payload.email.toLowerCase() : '';
  if (email === '') {
    throw new IdentityRejectedError(
      'not_allowed',
      'the token has no email (ask the metadata server for format=full)',
    );
  }
  if (payload.email_verified === false) {
    throw new IdentityRejectedError('not_allowed', `the email ${shown(email)} is not verified`);
  }
  if (!settings.serviceAccounts.some((account) => account.toLowerCase() === email)) {
    throw new IdentityRejectedError(
      'not_allowed',
      `service account ${shown(email)} is not allowed`,
    );
  }
  if (settings.projects.length > 0) {
    const project = gcpProjectOf(payload, email);
    if (project === undefined || !settings.projects.includes(project)) {
      throw new IdentityRejectedError(
        'not_allowed',
        `project ${shown(project ?? '(unknown)')} is not allowed`,
      );
    }
  }
  return { subject: email };
}

/**
 * The project of a GCP workload: the Compute Engine claim of a `format=full` token, else the
 * project part of a user-managed service account's email (`name@PROJECT.iam.gserviceaccount.com`).
 */
function gcpProjectOf(payload: Record<string, unknown>, email: string): string | undefined {
  const google = payload.google as { compute_engine?: { project_id?: unknown } } | undefined;
  const fromClaim = google?.compute_engine?.project_id;
  if (typeof fromClaim === 'string') return fromClaim;
  return /@([a-z0-9-]+)\.iam\.gserviceaccount\.com$/.exec(email)?.[1];
}

export async function verifyAzure(
  jwt: JwtChecks,
  settings: AzureSettings,
  token: string,
): Promise<VerifiedWorkload> {
  const payload = await jwt.verify(
    token,
    new URL(settings.jwksUrl ?? azureJwksUrl(settings.tenantId)),
    {
      issuers: azureIssuers(settings.tenantId),
      audiences: [settings.audience],
    },
  );
  if (
    typeof payload.tid === 'string' &&
    payload.tid.toLowerCase() !== settings.tenantId.toLowerCase()
  ) {
    throw new IdentityRejectedError('issuer', 'the token is from another tenant (tid)');
  }
  const oid = typeof payload.oid === 'string' ? payload.oid.toLowerCase() : '';
  if (!settings.principalIds.some((id) => id.toLowerCase() === oid)) {
    throw new IdentityRejectedError(
      'not_allowed',
      `principal ${shown(oid || '(none)')} is not allowed`,
    );
  }
  return { subject: oid };
}
