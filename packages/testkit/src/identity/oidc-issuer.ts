/**
 * A stand-in OIDC issuer: discovery document and JWKS over real HTTP(S), RS256 and ES256 keys,
 * key rotation, and tokens signed on demand (also from keys it does not publish, or with a key
 * that is not the published one, for the failure paths). GCP and Azure tokens come from it too:
 * `issuer` may be any text (`https://accounts.google.com`) while it serves on loopback.
 */
import { randomUUID } from 'node:crypto';
import {
  SignJWT,
  exportJWK,
  generateKeyPair,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';
import { sendJson, startLoopbackServer } from './loopback-server.ts';

export type SigningAlgorithm = 'RS256' | 'ES256';

interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface SignOptions {
  alg?: SigningAlgorithm;
  /** Lifetime from now (default 300 s); negative for a token that has expired. */
  expiresInS?: number;
  /** `iat` is now plus this (default 0). */
  issuedAtOffsetS?: number;
  /** `nbf`, seconds from now. */
  notBeforeOffsetS?: number;
  /** `iss` other than the issuer's own. */
  issuer?: string;
  /**
   * `current` (default): the published key of `alg`. `unpublished`: a key with a kid the JWKS
   * never had. `impostor`: another key under the published kid (the signature cannot verify).
   */
  key?: 'current' | 'unpublished' | 'impostor';
}

export interface OidcIssuer {
  /** Where it serves, e.g. `http://127.0.0.1:4000`. */
  url: string;
  /** The `iss` of its tokens (its URL unless given). */
  issuer: string;
  jwksUrl: string;
  /** How many times each document was fetched (for cache tests). */
  fetches: { discovery: number; jwks: number };
  /** A signed token with `claims` (`sub`, `aud`, …) plus `iss`, `iat`, `exp`. */
  sign(claims: JWTPayload, options?: SignOptions): Promise<string>;
  /** New keys for every algorithm; the JWKS keeps the previous ones unless `retire`. */
  rotate(options?: { retire?: boolean }): Promise<void>;
  close(): Promise<void>;
}

export async function startOidcIssuer(
  options: { issuer?: string; tls?: boolean } = {},
): Promise<OidcIssuer> {
  let current = await Promise.all([newKey('RS256'), newKey('ES256')]);
  let published: SigningKey[] = [...current];
  const fetches = { discovery: 0, jwks: 0 };
  let issuer = options.issuer ?? '';
  const server = await startLoopbackServer(
    (req, _body, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method === 'GET' && path === '/.well-known/openid-configuration') {
        fetches.discovery++;
        return sendJson(res, 200, {
          issuer,
          jwks_uri: `${server.url}/jwks`,
          id_token_signing_alg_values_supported: ['RS256', 'ES256'],
          response_types_supported: ['id_token'],
          subject_types_supported: ['public'],
        });
      }
      if (req.method === 'GET' && path === '/jwks') {
        fetches.jwks++;
        return sendJson(res, 200, { keys: published.map((k) => k.publicJwk) });
      }
      sendJson(res, 404, { error: 'not_found' });
    },
    { tls: options.tls ?? false },
  );
  if (!options.issuer) issuer = server.url;

  return {
    url: server.url,
    issuer,
    jwksUrl: `${server.url}/jwks`,
    fetches,
    async sign(claims, o = {}) {
      const alg = o.alg ?? 'RS256';
      const published = current.find((k) => k.alg === alg)!;
      let key = published;
      if (o.key === 'unpublished') key = await newKey(alg);
      if (o.key === 'impostor') key = { ...(await newKey(alg)), kid: published.kid };
      const now = Math.floor(Date.now() / 1000);
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg, kid: key.kid, typ: 'JWT' })
        .setIssuer(o.issuer ?? issuer)
        .setIssuedAt(now + (o.issuedAtOffsetS ?? 0))
        .setExpirationTime(now + (o.expiresInS ?? 300));
      if (o.notBeforeOffsetS !== undefined) jwt.setNotBefore(now + o.notBeforeOffsetS);
      return jwt.sign(key.privateKey);
    },
    async rotate(o = {}) {
      current = await Promise.all([newKey('RS256'), newKey('ES256')]);
      published = o.retire ? [...current] : [...current, ...published];
    },
    close: () => server.close(),
  };
}

async function newKey(alg: SigningAlgorithm): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = randomUUID();
  return {
    kid,
    alg,
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' },
  };
}
