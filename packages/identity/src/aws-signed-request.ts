/**
 * The checks on a forwarded `GetCallerIdentity` request, all made before any network call: it
 * goes to the identity's STS endpoint or nowhere (the caller never chooses a URL or host the
 * server would call), it asks for GetCallerIdentity and nothing else, it is SigV4-signed over
 * its host, and, when the identity has a server id, over `X-Svc-Server-Id` carrying it.
 */
import {
  IdentityRejectedError,
  ValidationError,
  type AwsSettings,
  type SignedAwsRequest,
} from '@svc/domain';

export const SERVER_ID_HEADER = 'x-svc-server-id';
const SIGV4_AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=[^\s,]+, ?SignedHeaders=([a-z0-9-;]+), ?Signature=[0-9a-f]{64}$/;
/** Never forwarded: they describe this hop, not the signed request. */
const HOP_HEADERS = new Set([
  'connection',
  'content-length',
  'expect',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** What the server sends to STS: the configured endpoint and the caller's signed headers. */
export interface StsCall {
  url: URL;
  headers: Record<string, string>;
  body: string;
}

export function checkSignedRequest(settings: AwsSettings, request: SignedAwsRequest): StsCall {
  const endpoint = new URL(settings.stsEndpoint);
  if (request.method.toUpperCase() !== 'POST') {
    throw new ValidationError('aws.method', 'must be POST');
  }
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new ValidationError('aws.url', 'must be an absolute URL');
  }
  if (url.origin !== endpoint.origin || url.pathname !== endpoint.pathname || url.search !== '') {
    throw new ValidationError('aws.url', `must be this identity's STS endpoint, ${endpoint.href}`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (lower in headers) throw new ValidationError('aws.headers', `names ${lower} twice`);
    headers[lower] = value;
  }
  if (headers.host !== undefined && headers.host.toLowerCase() !== endpoint.host) {
    throw new ValidationError(
      'aws.headers.host',
      `must be this identity's STS host, ${endpoint.host}`,
    );
  }
  const params = new URLSearchParams(request.body);
  const names = [...params.keys()].sort();
  if (
    params.get('Action') !== 'GetCallerIdentity' ||
    names.join(',') !== 'Action,Version' ||
    params.getAll('Action').length !== 1
  ) {
    throw new ValidationError(
      'aws.body',
      'must be Action=GetCallerIdentity&Version=… and nothing else',
    );
  }
  const signed = SIGV4_AUTHORIZATION.exec(headers.authorization ?? '')?.[1]?.split(';');
  if (!signed) {
    throw new IdentityRejectedError(
      'signature',
      'the request carries no SigV4 Authorization header',
    );
  }
  if (!signed.includes('host')) {
    throw new IdentityRejectedError('signature', 'the signature does not cover the host');
  }
  if (settings.serverId !== null) {
    if (!signed.includes(SERVER_ID_HEADER) || headers[SERVER_ID_HEADER] !== settings.serverId) {
      throw new IdentityRejectedError(
        'server_id',
        `the signed request must carry X-Svc-Server-Id: ${settings.serverId}, signed`,
      );
    }
  }
  const forwarded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_HEADERS.has(name)) forwarded[name] = value;
  }
  forwarded.host = endpoint.host;
  return { url: endpoint, headers: forwarded, body: request.body };
}
