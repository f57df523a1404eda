/**
 * The receiving side of the `aws` method, as STS would check it: the signed `GetCallerIdentity`
 * request is signed again with `@smithy/signature-v4` from the same credentials, date and
 * signed headers, and the two `Authorization` headers must match.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentials } from '../../src/index.ts';

export interface SignedRequest {
  method?: unknown;
  url?: unknown;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Why `request` is not a valid signature by `credentials`, or undefined when it is. */
export async function sigv4Problem(
  request: SignedRequest,
  credentials: AwsCredentials,
  options: { region: string; mustSign?: string[] },
): Promise<string | undefined> {
  const headers = Object.fromEntries(
    Object.entries(request.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/\d{8}\/([^/]+)\/sts\/aws4_request, SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$/.exec(
      headers.authorization ?? '',
    );
  if (!match) return 'no SigV4 Authorization header';
  const [, accessKeyId, region, signedList] = match;
  if (accessKeyId !== credentials.accessKeyId) return 'another access key';
  if (region !== options.region) return `signed for ${region}`;
  const signed = signedList!.split(';');
  for (const name of ['host', 'x-amz-date', ...(options.mustSign ?? [])]) {
    if (!signed.includes(name)) return `${name} is not signed`;
  }
  const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(headers['x-amz-date'] ?? '');
  if (!date) return 'no X-Amz-Date';
  const [, y, mo, d, h, mi, s] = date.map(Number);
  const url = new URL(String(request.url));
  if (headers.host !== url.host) return 'the host header is not the URL’s';
  const body = Buffer.from(String(request.body), 'base64').toString('utf8');
  if (!/(^|&)Action=GetCallerIdentity(&|$)/.test(body)) return 'not GetCallerIdentity';
  const signer = new SignatureV4({ service: 'sts', region, credentials, sha256: Sha256 });
  const again = await signer.sign(
    {
      method: String(request.method),
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: url.pathname,
      query: {},
      headers: Object.fromEntries(signed.map((name) => [name, headers[name] ?? ''])),
      body,
    },
    { signingDate: new Date(Date.UTC(y!, mo! - 1, d, h, mi, s)) },
  );
  return again.headers.authorization === headers.authorization ? undefined : 'bad signature';
}
