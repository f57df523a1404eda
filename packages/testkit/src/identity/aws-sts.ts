/**
 * A stand-in AWS STS that answers `GetCallerIdentity` only for requests whose SigV4 signature
 * it recomputes, with the AWS SDK's own signer (`@smithy/signature-v4`), from the secret of the
 * access key they name: a wrong secret, a changed header or body, another host, or a stale date
 * is refused with STS's error answer. Answers XML, as STS does by default.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { sendText, startLoopbackServer } from './loopback-server.ts';

/** An IAM principal the stand-in knows, by its (test) credentials. */
export interface StsPrincipal {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** `arn:aws:sts::123456789012:assumed-role/checkout/i-0abc` or an IAM user/role ARN. */
  arn: string;
  account: string;
  userId?: string;
}

export interface AwsSts {
  url: string;
  caCert: string | undefined;
  /** Every request: who it claimed to be and whether its signature held. */
  requests: Array<{
    accessKeyId: string | undefined;
    accepted: boolean;
    headers: IncomingMessage['headers'];
  }>;
  close(): Promise<void>;
}

/** SigV4 refuses requests whose date is further than this from now. */
const MAX_SKEW_MS = 15 * 60_000;
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request, ?SignedHeaders=([a-z0-9-;]+), ?Signature=([0-9a-f]{64})$/;

export async function startAwsSts(options: {
  principals: StsPrincipal[];
  tls?: boolean;
}): Promise<AwsSts> {
  const principals = new Map(options.principals.map((p) => [p.accessKeyId, p]));
  const requests: AwsSts['requests'] = [];
  const server = await startLoopbackServer(
    async (req, body, res) => {
      const auth = AUTHORIZATION.exec(String(req.headers.authorization ?? ''));
      const refuse = (status: number, code: string, message: string) => {
        requests.push({ accessKeyId: auth?.[1], accepted: false, headers: req.headers });
        sendText(res, status, errorXml(code, message), 'text/xml');
      };
      if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/') {
        return refuse(404, 'UnknownOperation', 'only POST / is served');
      }
      const params = new URLSearchParams(body);
      if (params.get('Action') !== 'GetCallerIdentity')
        return refuse(400, 'InvalidAction', 'only GetCallerIdentity');
      if (!auth)
        return refuse(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
      const [, accessKeyId, , region, service, signedHeaders, signature] =
        auth as unknown as string[];
      const principal = principals.get(accessKeyId!);
      if (!principal)
        return refuse(
          403,
          'InvalidClientTokenId',
          'The security token included in the request is invalid.',
        );
      if (service !== 'sts')
        return refuse(
          403,
          'SignatureDoesNotMatch',
          'Credential should be scoped to correct service',
        );
      if (req.headers.host !== server.host)
        return refuse(403, 'SignatureDoesNotMatch', 'the Host is not this endpoint');
      const amzDate = String(req.headers['x-amz-date'] ?? '');
      const signingDate = parseAmzDate(amzDate);
      if (!signingDate || Math.abs(signingDate.getTime() - Date.now()) > MAX_SKEW_MS) {
        return refuse(403, 'SignatureDoesNotMatch', 'Signature expired or date missing');
      }
      const token = req.headers['x-amz-security-token'];
      if (
        (principal.sessionToken ?? undefined) !== (token === undefined ? undefined : String(token))
      ) {
        return refuse(
          403,
          'InvalidClientTokenId',
          'The security token included in the request is invalid.',
        );
      }
      const expected = await recompute(req, body, signedHeaders!.split(';'), {
        principal,
        region: region!,
        signingDate,
        host: server.host,
      });
      if (!expected || !constantTimeEqual(expected, signature!)) {
        return refuse(
          403,
          'SignatureDoesNotMatch',
          'The request signature we calculated does not match the signature you provided.',
        );
      }
      requests.push({ accessKeyId, accepted: true, headers: req.headers });
      sendText(res, 200, successXml(principal), 'text/xml');
    },
    { tls: options.tls ?? false },
  );
  return { url: server.url, caCert: server.caCert, requests, close: () => server.close() };
}

/** The signature the request should carry, made by the AWS SDK's signer over its signed headers. */
async function recompute(
  req: IncomingMessage,
  body: string,
  signedHeaders: string[],
  context: { principal: StsPrincipal; region: string; signingDate: Date; host: string },
): Promise<string | undefined> {
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = req.headers[name];
    if (value === undefined) return undefined;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const [hostname, port] = context.host.split(':');
  const signer = new SignatureV4({
    credentials: {
      accessKeyId: context.principal.accessKeyId,
      secretAccessKey: context.principal.secretAccessKey,
      ...(context.principal.sessionToken ? { sessionToken: context.principal.sessionToken } : {}),
    },
    region: context.region,
    service: 'sts',
    sha256: Hash.bind(null, 'sha256'),
    // Only what the client signed: no checksum header of our own.
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: hostname!,
      port: Number(port),
      path: '/',
      query: {},
      headers,
      body,
    },
    { signingDate: context.signingDate, signableHeaders: new Set(signedHeaders) },
  );
  return /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1];
}

/** `20240101T120000Z`. */
function parseAmzDate(text: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : undefined;
}

function constantTimeEqual(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

function successXml(p: StsPrincipal): string {
  return `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <GetCallerIdentityResult>
    <Arn>${p.arn}</Arn>
    <UserId>${p.userId ?? `AROA${p.accessKeyId.slice(4)}:session`}</UserId>
    <Account>${p.account}</Account>
  </GetCallerIdentityResult>
  <ResponseMetadata><RequestId>00000000-0000-4000-8000-000000000000</RequestId></ResponseMetadata>
</GetCallerIdentityResponse>
`;
}

function errorXml(code: string, message: string): string {
  return `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error>
  <RequestId>00000000-0000-4000-8000-000000000000</RequestId>
</ErrorResponse>
`;
}
