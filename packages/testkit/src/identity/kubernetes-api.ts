/**
 * A stand-in Kubernetes api server that answers TokenReviews
 * (`POST /apis/authentication.k8s.io/v1/tokenreviews`) as a cluster does: the bearer must be
 * allowed to review (a reviewer token, or a service account bound to system:auth-delegator),
 * the reviewed token must be one it issued, not revoked, for one of the asked audiences.
 * HTTPS with a self-signed CA by default, as clusters serve.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { sendJson, startLoopbackServer } from './loopback-server.ts';

export const TOKEN_REVIEW_PATH = '/apis/authentication.k8s.io/v1/tokenreviews';
/** The api server's own audience: what a review without audiences checks. */
export const KUBERNETES_DEFAULT_AUDIENCE = 'https://kubernetes.default.svc';

export interface ServiceAccountToken {
  namespace: string;
  serviceAccount: string;
  audiences: string[];
  /** Bound to system:auth-delegator: may review tokens, its own included. */
  canReview: boolean;
  revoked: boolean;
}

export interface KubernetesApi {
  url: string;
  /** PEM of its certificate, the `ca_cert` of an identity (with `tls`). */
  caCert: string | undefined;
  /** A projected service-account token for `namespace`/`serviceAccount`. */
  issueToken(options: {
    namespace: string;
    serviceAccount: string;
    audiences?: string[];
    canReview?: boolean;
  }): string;
  /** A token that may review others' (a reviewer's service account, as an identity holds). */
  issueReviewerToken(): string;
  revoke(token: string): void;
  /** Every review asked for, with the bearer that asked. */
  reviews: Array<{ bearer: string; token: string; audiences: string[] | undefined }>;
  close(): Promise<void>;
}

export async function startKubernetesApi(options: { tls?: boolean } = {}): Promise<KubernetesApi> {
  const tokens = new Map<string, ServiceAccountToken>();
  const reviews: KubernetesApi['reviews'] = [];
  const server = await startLoopbackServer(
    (req, body, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method !== 'POST' || path !== TOKEN_REVIEW_PATH) {
        return sendJson(
          res,
          404,
          status(404, 'NotFound', 'the server could not find the requested resource'),
        );
      }
      const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const caller = tokens.get(bearer);
      if (!caller || caller.revoked)
        return sendJson(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
      if (!caller.canReview) {
        return sendJson(
          res,
          403,
          status(
            403,
            'Forbidden',
            `tokenreviews.authentication.k8s.io is forbidden: User "system:serviceaccount:${caller.namespace}:${caller.serviceAccount}" cannot create resource "tokenreviews"`,
          ),
        );
      }
      const review = JSON.parse(body) as { spec?: { token?: string; audiences?: string[] } };
      const token = review.spec?.token ?? '';
      const asked = review.spec?.audiences;
      reviews.push({ bearer, token, audiences: asked });
      const account = tokens.get(token);
      const wanted = asked ?? [KUBERNETES_DEFAULT_AUDIENCE];
      const audiences = account ? account.audiences.filter((a) => wanted.includes(a)) : [];
      const authenticated = account !== undefined && !account.revoked && audiences.length > 0;
      sendJson(res, 201, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        metadata: { creationTimestamp: null },
        spec: review.spec,
        status: authenticated
          ? {
              authenticated: true,
              user: {
                username: `system:serviceaccount:${account.namespace}:${account.serviceAccount}`,
                uid: randomUUID(),
                groups: [
                  'system:serviceaccounts',
                  `system:serviceaccounts:${account.namespace}`,
                  'system:authenticated',
                ],
              },
              audiences,
            }
          : {
              user: {},
              error: account
                ? '[invalid bearer token, token audiences is invalid]'
                : '[invalid bearer token]',
            },
      });
    },
    { tls: options.tls ?? true },
  );

  const issue = (account: ServiceAccountToken): string => {
    const token = `k8s.${randomBytes(24).toString('base64url')}`;
    tokens.set(token, account);
    return token;
  };
  return {
    url: server.url,
    caCert: server.caCert,
    issueToken: (o) =>
      issue({
        namespace: o.namespace,
        serviceAccount: o.serviceAccount,
        audiences: o.audiences ?? [KUBERNETES_DEFAULT_AUDIENCE],
        canReview: o.canReview ?? false,
        revoked: false,
      }),
    issueReviewerToken: () =>
      issue({
        namespace: 'svc-system',
        serviceAccount: 'token-reviewer',
        audiences: [KUBERNETES_DEFAULT_AUDIENCE],
        canReview: true,
        revoked: false,
      }),
    revoke(token) {
      const account = tokens.get(token);
      if (account) account.revoked = true;
    },
    reviews,
    close: () => server.close(),
  };
}

function status(code: number, reason: string, message: string) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  };
}
