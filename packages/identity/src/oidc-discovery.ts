/**
 * OIDC discovery (`{issuer}/.well-known/openid-configuration`): where an issuer keeps its keys,
 * when an identity names no `jwks_url`. The document must name the issuer itself (OIDC
 * Discovery 1.0, 4.3) and a `jwks_uri` the server may call; it is kept for an hour.
 */
import { UpstreamUnavailableError, upstreamUrl, type IdentityPolicy } from '@svc/domain';
import { callUpstream } from './upstream-http.ts';

const DISCOVERY_TTL_MS = 60 * 60_000;
const DISCOVERY_CACHE_MAX = 512;

export class OidcDiscovery {
  private readonly documents = new Map<string, { jwksUrl: URL; until: number }>();

  constructor(private readonly options: { policy: IdentityPolicy; timeoutMs: number }) {}

  async jwksUrl(issuer: string): Promise<URL> {
    const cached = this.documents.get(issuer);
    if (cached && cached.until > Date.now()) return cached.jwksUrl;
    const jwksUrl = await this.fetch(issuer);
    if (this.documents.size >= DISCOVERY_CACHE_MAX) this.documents.clear();
    this.documents.set(issuer, { jwksUrl, until: Date.now() + DISCOVERY_TTL_MS });
    return jwksUrl;
  }

  private async fetch(issuer: string): Promise<URL> {
    const url = new URL(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
    const name = `OIDC discovery ${url.href}`;
    const res = await callUpstream({
      name,
      url,
      method: 'GET',
      headers: { accept: 'application/json' },
      timeoutMs: this.options.timeoutMs,
    });
    if (res.status !== 200) throw new UpstreamUnavailableError(`${name}: status ${res.status}`);
    let document: { issuer?: unknown; jwks_uri?: unknown };
    try {
      document = JSON.parse(res.body) as typeof document;
    } catch {
      throw new UpstreamUnavailableError(`${name}: not JSON`);
    }
    if (document.issuer !== issuer) {
      throw new UpstreamUnavailableError(`${name}: the document names another issuer`);
    }
    const jwks =
      typeof document.jwks_uri === 'string'
        ? upstreamUrl(document.jwks_uri, this.options.policy)
        : 'missing';
    if (typeof jwks === 'string') throw new UpstreamUnavailableError(`${name}: jwks_uri ${jwks}`);
    return jwks;
  }
}
