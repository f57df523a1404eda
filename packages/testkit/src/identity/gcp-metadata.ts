/**
 * A stand-in GCP metadata server: the identity token of the instance's service account for an
 * audience (`/computeMetadata/v1/instance/service-accounts/default/identity?audience=…`), only
 * with `Metadata-Flavor: Google`, signed by an OidcIssuer whose `iss` is Google's. Point a
 * client at it as GCE_METADATA_HOST does.
 */
import { sendJson, sendText, startLoopbackServer } from './loopback-server.ts';
import type { OidcIssuer } from './oidc-issuer.ts';

export const GCP_IDENTITY_PATH = '/computeMetadata/v1/instance/service-accounts/default/identity';

export interface GcpMetadata {
  url: string;
  /** `127.0.0.1:PORT`, as GCE_METADATA_HOST takes it. */
  host: string;
  /** Audiences asked for, in order. */
  requests: string[];
  /** Asks it over HTTP for a token, as a workload on the instance does (`full`: with claims of the instance). */
  identityToken(audience: string, options?: { full?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function startGcpMetadata(options: {
  /** Signs the tokens; start it with `issuer: 'https://accounts.google.com'`. */
  issuer: OidcIssuer;
  email: string;
  projectId: string;
  /** Lifetime of each token (Google's are 3600 s). */
  expiresInS?: number;
}): Promise<GcpMetadata> {
  const requests: string[] = [];
  const server = await startLoopbackServer(async (req, _body, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers['metadata-flavor'] !== 'Google') {
      return sendText(res, 403, 'Missing Metadata-Flavor:Google header.', 'text/html');
    }
    if (req.method !== 'GET' || url.pathname !== GCP_IDENTITY_PATH)
      return sendJson(res, 404, { error: 'not found' });
    const audience = url.searchParams.get('audience');
    if (!audience) return sendText(res, 400, 'non-empty audience parameter required', 'text/plain');
    requests.push(audience);
    const full = url.searchParams.get('format') === 'full';
    const token = await options.issuer.sign(
      {
        aud: audience,
        azp: '100000000000000000000',
        sub: '100000000000000000000',
        email: options.email,
        email_verified: true,
        ...(full
          ? {
              google: {
                compute_engine: {
                  project_id: options.projectId,
                  project_number: 1,
                  zone: 'europe-west1-b',
                  instance_id: '1',
                  instance_name: 'vm',
                },
              },
            }
          : {}),
      },
      { expiresInS: options.expiresInS ?? 3600 },
    );
    sendText(res, 200, token, 'text/html');
  });
  const identityToken = async (audience: string, asked: { full?: boolean } = {}) => {
    const query = `audience=${encodeURIComponent(audience)}${asked.full ? '&format=full' : ''}`;
    const res = await fetch(`${server.url}${GCP_IDENTITY_PATH}?${query}`, {
      headers: { 'Metadata-Flavor': 'Google' },
    });
    if (res.status !== 200) throw new Error(`gcp metadata: ${res.status} ${await res.text()}`);
    return res.text();
  };
  return {
    url: server.url,
    host: server.host,
    requests,
    identityToken,
    close: () => server.close(),
  };
}
