/**
 * `WorkloadIdentity`: what a Node client takes instead of `apiKey` to prove who it is with its
 * platform's token and exchange it for short-lived keys (contract, "Workload identity
 * federation"), and its validation: a `TypeError` naming the field, before any request.
 */

/** How the workload proves who it is: one of the identity's five methods. */
export type IdentityMethod = 'kubernetes' | 'aws' | 'gcp' | 'azure' | 'oidc';

const METHODS: readonly IdentityMethod[] = ['kubernetes', 'aws', 'gcp', 'azure', 'oidc'];

/** AWS credentials, as the AWS SDK's credential providers give them. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * A workload identity: the identity's id (from the console or the management API) and the
 * method whose token the client presents. Every other field overrides a default of its method.
 */
export interface WorkloadIdentity {
  /** The identity's id. */
  identityId: string;
  method: IdentityMethod;
  /**
   * `kubernetes`: the projected service-account token (default
   * `/var/run/secrets/kubernetes.io/serviceaccount/token`). `oidc`: a file holding the token.
   * Read again at each exchange: platforms rotate these files.
   */
  tokenFile?: string;
  /** `oidc`: gives the token at each exchange (instead of `tokenFile`). */
  token?: () => string | Promise<string>;
  /** `gcp`, `azure`: the audience the token is asked for (the identity's `audience`). */
  audience?: string;
  /**
   * `gcp`: the metadata server (default `http://metadata.google.internal`). `azure`: the
   * instance metadata service (default `http://169.254.169.254`).
   */
  metadataUrl?: string;
  /** `azure`: the client id of a user-assigned managed identity (default: the system one). */
  clientId?: string;
  /**
   * `aws`: the STS endpoint the `GetCallerIdentity` request is signed for: the identity's
   * `sts_endpoint` (default `https://sts.amazonaws.com/`).
   */
  stsEndpoint?: string;
  /** `aws`: the signing region; default the endpoint's (`sts.{region}.amazonaws.com`) or `us-east-1`. */
  region?: string;
  /** `aws`: the identity's `server_id`, sent (and signed) as `X-Svc-Server-Id`. */
  serverId?: string;
  /** `aws`: credentials instead of the SDK's default chain (environment, profile, SSO, ECS, EC2, …). */
  credentials?: AwsCredentials | (() => Promise<AwsCredentials>);
  /** When to exchange again, as a share of the key's life. Default 2/3. */
  refreshAt?: number;
  /** Delays between failed exchanges (milliseconds): doubling from 1 000 to 30 000, with jitter. */
  retry?: { initialDelayMs?: number; maxDelayMs?: number };
}

/** A checked {@link WorkloadIdentity} with its defaults. */
export interface ResolvedIdentity extends WorkloadIdentity {
  refreshAt: number;
  retry: { initialDelayMs: number; maxDelayMs: number };
}

/** Which of the optional fields each method takes. */
const FIELDS: Record<IdentityMethod, readonly (keyof WorkloadIdentity)[]> = {
  kubernetes: ['tokenFile'],
  oidc: ['tokenFile', 'token'],
  gcp: ['audience', 'metadataUrl'],
  azure: ['audience', 'metadataUrl', 'clientId'],
  aws: ['stsEndpoint', 'region', 'serverId', 'credentials'],
};
const COMMON: readonly string[] = ['identityId', 'method', 'refreshAt', 'retry'];

/** Checks `identity`; a `TypeError` names the first problem (never a token). */
export function resolveIdentity(identity: WorkloadIdentity): ResolvedIdentity {
  if (typeof identity !== 'object' || identity === null) {
    throw new TypeError('identity must be an object');
  }
  const { identityId, method } = identity;
  if (typeof identityId !== 'string' || !/^[\w.-]{1,128}$/.test(identityId)) {
    throw new TypeError('identity.identityId must be an identity id');
  }
  if (!METHODS.includes(method)) {
    throw new TypeError(`identity.method must be one of ${METHODS.join(', ')}`);
  }
  for (const [name, value] of Object.entries(identity)) {
    if (value === undefined || COMMON.includes(name)) continue;
    if (!FIELDS[method].includes(name as keyof WorkloadIdentity)) {
      throw new TypeError(`identity.${name} does not apply to the ${method} method`);
    }
    const wanted = name === 'token' || name === 'credentials' ? undefined : 'string';
    if (wanted && (typeof value !== 'string' || value.trim() === '')) {
      throw new TypeError(`identity.${name} must be a non-empty string`);
    }
  }
  checkMethod(identity);
  const { refreshAt = 2 / 3, retry = {} } = identity;
  if (typeof refreshAt !== 'number' || !(refreshAt > 0 && refreshAt < 1)) {
    throw new TypeError('identity.refreshAt must be a number between 0 and 1');
  }
  const initialDelayMs = retry.initialDelayMs ?? 1_000;
  const maxDelayMs = retry.maxDelayMs ?? 30_000;
  for (const [name, value] of [
    ['initialDelayMs', initialDelayMs],
    ['maxDelayMs', maxDelayMs],
  ] as const) {
    if (typeof value !== 'number' || !(value > 0 && value < Infinity)) {
      throw new TypeError(`identity.retry.${name} must be a positive number of milliseconds`);
    }
  }
  return { ...identity, refreshAt, retry: { initialDelayMs, maxDelayMs } };
}

function checkMethod(identity: WorkloadIdentity): void {
  const { method, token, credentials } = identity;
  if (method === 'oidc' && (identity.tokenFile === undefined) === (token === undefined)) {
    throw new TypeError('identity: the oidc method takes either tokenFile or token');
  }
  if (token !== undefined && typeof token !== 'function') {
    throw new TypeError('identity.token must be a function');
  }
  if ((method === 'gcp' || method === 'azure') && identity.audience === undefined) {
    throw new TypeError(`identity.audience is required by the ${method} method`);
  }
  for (const name of ['metadataUrl', 'stsEndpoint'] as const) {
    const url = identity[name];
    if (url !== undefined && !/^https?:\/\/[^/?#@\s]+(\/[^?#\s]*)?$/.test(url)) {
      throw new TypeError(`identity.${name} must be an http(s) URL without query or credentials`);
    }
  }
  if (
    credentials !== undefined &&
    typeof credentials !== 'function' &&
    !(
      typeof credentials?.accessKeyId === 'string' &&
      typeof credentials.secretAccessKey === 'string'
    )
  ) {
    throw new TypeError(
      'identity.credentials must be { accessKeyId, secretAccessKey } or a function giving them',
    );
  }
}
