/**
 * A stand-in Azure instance metadata service: a managed identity's token for a resource
 * (`/metadata/identity/oauth2/token?api-version=2018-02-01&resource=…`), only with
 * `Metadata: true`, signed by an OidcIssuer whose `iss` is the tenant's
 * (`https://sts.windows.net/{tenant}/`).
 */
import { sendJson, startLoopbackServer } from './loopback-server.ts';
import type { OidcIssuer } from './oidc-issuer.ts';

export const AZURE_TOKEN_PATH = '/metadata/identity/oauth2/token';

export interface AzureImds {
  url: string;
  /** Resources asked for, in order. */
  requests: string[];
  /** Asks it over HTTP for the managed identity's token for `resource`, as a workload does. */
  accessToken(resource: string): Promise<string>;
  close(): Promise<void>;
}

export async function startAzureImds(options: {
  /** Signs the tokens; start it with `issuer: https://sts.windows.net/{tenantId}/`. */
  issuer: OidcIssuer;
  tenantId: string;
  /** The managed identity's object id (`oid`). */
  principalId: string;
  clientId?: string;
  expiresInS?: number;
}): Promise<AzureImds> {
  const requests: string[] = [];
  const expiresIn = options.expiresInS ?? 86_400;
  const clientId = options.clientId ?? '11111111-2222-4333-8444-555555555555';
  const server = await startLoopbackServer(async (req, _body, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers.metadata !== 'true') {
      return sendJson(res, 400, {
        error: 'invalid_request',
        error_description: 'Required metadata header not specified',
      });
    }
    if (req.method !== 'GET' || url.pathname !== AZURE_TOKEN_PATH)
      return sendJson(res, 404, { error: 'not_found' });
    const resource = url.searchParams.get('resource');
    if (!url.searchParams.get('api-version') || !resource) {
      return sendJson(res, 400, {
        error: 'invalid_request',
        error_description: 'api-version and resource are required',
      });
    }
    requests.push(resource);
    const token = await options.issuer.sign(
      {
        aud: resource,
        oid: options.principalId,
        sub: options.principalId,
        tid: options.tenantId,
        appid: clientId,
        idtyp: 'app',
        ver: '1.0',
      },
      { expiresInS: expiresIn },
    );
    const now = Math.floor(Date.now() / 1000);
    sendJson(res, 200, {
      access_token: token,
      client_id: clientId,
      expires_in: String(expiresIn),
      expires_on: String(now + expiresIn),
      ext_expires_in: String(expiresIn),
      not_before: String(now),
      resource,
      token_type: 'Bearer',
    });
  });
  const accessToken = async (resource: string) => {
    const query = `api-version=2018-02-01&resource=${encodeURIComponent(resource)}`;
    const res = await fetch(`${server.url}${AZURE_TOKEN_PATH}?${query}`, {
      headers: { Metadata: 'true' },
    });
    if (res.status !== 200) throw new Error(`azure imds: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  };
  return { url: server.url, requests, accessToken, close: () => server.close() };
}
