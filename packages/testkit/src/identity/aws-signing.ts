/**
 * A workload's side of the AWS method, for tests: a `GetCallerIdentity` request signed with
 * SigV4 by the AWS SDK's signer, as the exchange's `aws` field takes it.
 */
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';

export interface SignedStsRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body, as the exchange wants it: base64. */
  body: string;
}

export async function signGetCallerIdentity(
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
  options: {
    /** The STS endpoint (`http://127.0.0.1:PORT/` for the stand-in). */
    endpoint: string;
    region?: string;
    /** Signed as `X-Svc-Server-Id` when given. */
    serverId?: string;
  },
): Promise<SignedStsRequest> {
  const url = new URL(options.endpoint);
  const body = 'Action=GetCallerIdentity&Version=2011-06-15';
  const headers: Record<string, string> = {
    host: url.host,
    'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
    ...(options.serverId === undefined ? {} : { 'x-svc-server-id': options.serverId }),
  };
  const signer = new SignatureV4({
    credentials,
    region: options.region ?? 'us-east-1',
    service: 'sts',
    sha256: Hash.bind(null, 'sha256'),
  });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: {},
    headers,
    body,
  });
  return {
    method: 'POST',
    url: url.href,
    headers: signed.headers as Record<string, string>,
    body: Buffer.from(body).toString('base64'),
  };
}
