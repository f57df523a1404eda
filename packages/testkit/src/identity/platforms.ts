/**
 * The identity stand-ins a workload-identity test asks for, started together: an OIDC issuer,
 * a Kubernetes api server, an STS, a GCP metadata server (with the issuer that names Google)
 * and an Azure IMDS (with the tenant's issuer). One `close()` stops them all. Each platform's
 * details (service account, tenant, principal) have test defaults and can be named.
 */
import { startAwsSts, type AwsSts, type StsPrincipal } from './aws-sts.ts';
import { startAzureImds, type AzureImds } from './azure-imds.ts';
import { startGcpMetadata, type GcpMetadata } from './gcp-metadata.ts';
import { startKubernetesApi, type KubernetesApi } from './kubernetes-api.ts';
import { startOidcIssuer, type OidcIssuer } from './oidc-issuer.ts';

/** The principal the STS stand-in knows unless told otherwise (role `checkout-api`). */
export const TEST_AWS_PRINCIPAL: StsPrincipal = {
  accessKeyId: 'ASIATESTCHECKOUT0001',
  secretAccessKey: 'test-secret-checkout',
  sessionToken: 'session-checkout',
  arn: 'arn:aws:sts::123456789012:assumed-role/checkout-api/i-0abc',
  account: '123456789012',
};

/** Which stand-ins to start: a key present starts that platform's. */
export interface PlatformOptions {
  oidc?: { tls?: boolean };
  kubernetes?: { tls?: boolean };
  aws?: { principals?: StsPrincipal[] };
  gcp?: { email?: string; projectId?: string };
  azure?: { tenantId?: string; principalId?: string };
}

/** Each platform's stand-ins, by identity method. */
export interface Platforms {
  oidc: OidcIssuer;
  kubernetes: KubernetesApi;
  aws: AwsSts & { principal: StsPrincipal };
  gcp: { metadata: GcpMetadata; issuer: OidcIssuer; email: string; projectId: string };
  azure: { imds: AzureImds; issuer: OidcIssuer; tenantId: string; principalId: string };
}

/** The stand-ins of the methods `M` (all unless named), and a `close()` that stops them all. */
export type IdentityPlatforms<M extends keyof Platforms = keyof Platforms> = Pick<Platforms, M> & {
  close(): Promise<void>;
};

const EVERY_PLATFORM: Required<PlatformOptions> = {
  oidc: {},
  kubernetes: {},
  aws: {},
  gcp: {},
  azure: {},
};

/** Starts the stand-ins named in `options` (all, with their defaults, without) on loopback. */
export function startIdentityPlatforms(): Promise<IdentityPlatforms>;
export function startIdentityPlatforms<O extends PlatformOptions>(
  options: O,
): Promise<IdentityPlatforms<keyof O & keyof Platforms>>;
export async function startIdentityPlatforms(
  options: PlatformOptions = EVERY_PLATFORM,
): Promise<IdentityPlatforms<never>> {
  const started: Partial<Platforms> = {};
  const servers: Array<{ close(): Promise<void> }> = [];
  const track = <T extends { close(): Promise<void> }>(server: T): T => {
    servers.push(server);
    return server;
  };
  const close = async () => {
    for (const server of servers.reverse()) await server.close();
  };
  try {
    if (options.oidc) started.oidc = track(await startOidcIssuer(options.oidc));
    if (options.kubernetes)
      started.kubernetes = track(await startKubernetesApi(options.kubernetes));
    if (options.aws) {
      const principals = options.aws.principals ?? [TEST_AWS_PRINCIPAL];
      const sts = track(await startAwsSts({ principals }));
      started.aws = Object.assign(sts, { principal: principals[0]! });
    }
    if (options.gcp) {
      const email = options.gcp.email ?? 'checkout@web-prod.iam.gserviceaccount.com';
      const projectId = options.gcp.projectId ?? 'web-prod';
      const issuer = track(await startOidcIssuer({ issuer: 'https://accounts.google.com' }));
      const metadata = track(await startGcpMetadata({ issuer, email, projectId }));
      started.gcp = { metadata, issuer, email, projectId };
    }
    if (options.azure) {
      const tenantId = options.azure.tenantId ?? '72f988bf-86f1-41af-91ab-2d7cd011db47';
      const principalId = options.azure.principalId ?? '0c4e1b5a-1234-4abc-9def-0123456789ab';
      const issuer = track(
        await startOidcIssuer({ issuer: `https://sts.windows.net/${tenantId}/` }),
      );
      const imds = track(await startAzureImds({ issuer, tenantId, principalId }));
      started.azure = { imds, issuer, tenantId, principalId };
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { ...started, close };
}
