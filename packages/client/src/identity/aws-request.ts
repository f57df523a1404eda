/**
 * The `aws` method's proof: a `GetCallerIdentity` request to STS, signed (SigV4) with the
 * workload's AWS credentials but not sent: the service forwards it to its configured STS
 * endpoint and learns the caller's account and ARN from the answer.
 *
 * The AWS SDK's own parts do the work: the default credential chain of
 * `@aws-sdk/credential-providers` and the signer of `@smithy/signature-v4` with
 * `@aws-crypto/sha256-js`. They are optional dependencies, imported on first use, so a client
 * of any other method neither needs nor loads them.
 */
import type { Sha256 } from '@aws-crypto/sha256-js';
import type { SignatureV4 } from '@smithy/signature-v4';
import { describe, ServiceError } from '../errors.ts';
import type { AwsCredentials, ResolvedIdentity } from './workload-identity.ts';

/** The request as the exchange carries it (`aws` in the body). */
export interface SignedAwsRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  /** The body, base64. */
  body: string;
}

export const DEFAULT_STS_ENDPOINT = 'https://sts.amazonaws.com/';
const BODY = 'Action=GetCallerIdentity&Version=2011-06-15';
const PACKAGES = '@aws-sdk/credential-providers, @smithy/signature-v4 and @aws-crypto/sha256-js';

type CredentialProvider = () => Promise<AwsCredentials>;

interface AwsParts {
  // Types only: the modules themselves are imported on first use.
  SignatureV4: typeof SignatureV4;
  Sha256: typeof Sha256;
  credentials: CredentialProvider;
}

/** A function signing a fresh request each time; the SDK resolves (and caches) credentials. */
export function signedCallerIdentity(identity: ResolvedIdentity): () => Promise<SignedAwsRequest> {
  const url = new URL(identity.stsEndpoint ?? DEFAULT_STS_ENDPOINT);
  const region = identity.region ?? regionOf(url.hostname);
  let parts: Promise<AwsParts> | undefined;
  return async () => {
    parts ??= load(identity).catch((error: unknown) => {
      parts = undefined;
      throw error;
    });
    const { SignatureV4, Sha256, credentials } = await parts;
    const headers: Record<string, string> = {
      host: url.host,
      'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
    };
    if (identity.serverId !== undefined) headers['x-svc-server-id'] = identity.serverId;
    try {
      const signer = new SignatureV4({ service: 'sts', region, credentials, sha256: Sha256 });
      const signed = await signer.sign({
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port === '' ? undefined : Number(url.port),
        path: url.pathname,
        query: {},
        headers,
        body: BODY,
      });
      return {
        method: 'POST',
        url: url.href,
        headers: signed.headers,
        body: Buffer.from(BODY).toString('base64'),
      };
    } catch (error) {
      throw new ServiceError(`identity: signing GetCallerIdentity failed: ${describe(error)}`, {
        cause: error,
      });
    }
  };
}

/** The SDK's modules (a clear error when they are not installed) and the credential provider. */
async function load(identity: ResolvedIdentity): Promise<AwsParts> {
  try {
    const [signer, sha256] = await Promise.all([
      import('@smithy/signature-v4'),
      import('@aws-crypto/sha256-js'),
    ]);
    const SignatureV4 = exported(signer, 'SignatureV4');
    const Sha256 = exported(sha256, 'Sha256');
    const given = identity.credentials;
    const credentials: CredentialProvider =
      typeof given === 'function'
        ? given
        : given !== undefined
          ? () => Promise.resolve(given)
          : exported(await import('@aws-sdk/credential-providers'), 'fromNodeProviderChain')();
    return { SignatureV4, Sha256, credentials };
  } catch (error) {
    throw new ServiceError(`identity: the aws method needs ${PACKAGES} installed`, {
      cause: error,
    });
  }
}

/**
 * A module's export `name`. The SDK's packages are CommonJS: once a bundler such as esbuild has
 * put them in chunks of an ES module bundle (the `svc` command), their exports are on `default`.
 */
function exported<M extends object, K extends keyof M>(module: M, name: K): M[K] {
  const value = module[name] ?? (module as { default?: M }).default?.[name];
  if (value === undefined) throw new TypeError(`the module exports no ${String(name)}`);
  return value;
}

/** `sts.{region}.amazonaws.com` names its region; the global endpoint signs for us-east-1. */
function regionOf(hostname: string): string {
  const match = /^sts(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/.exec(hostname);
  return match?.[1] ?? 'us-east-1';
}
