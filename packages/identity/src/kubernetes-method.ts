/**
 * Kubernetes service-account tokens: a TokenReview on the cluster's api server (with the
 * identity's reviewer token, else the caller's own token reviewing itself), then the
 * authenticated user must be `system:serviceaccount:{ns}:{name}` of the allowed lists.
 */
import {
  IdentityRejectedError,
  UpstreamUnavailableError,
  type KubernetesSettings,
  type VerifiedWorkload,
} from '@svc/domain';
import { shown } from './claim-patterns.ts';
import { callUpstream } from './upstream-http.ts';

const TOKEN_REVIEW_PATH = '/apis/authentication.k8s.io/v1/tokenreviews';
const SERVICE_ACCOUNT_USER = /^system:serviceaccount:([^:]+):([^:]+)$/;

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string };
  audiences?: string[];
  error?: string;
}

export async function verifyKubernetes(
  settings: KubernetesSettings,
  token: string,
  reviewerToken: string | null,
  timeoutMs: number,
): Promise<VerifiedWorkload> {
  const url = new URL(settings.apiServer.replace(/\/$/, '') + TOKEN_REVIEW_PATH);
  const res = await callUpstream({
    name: 'TokenReview',
    url,
    method: 'POST',
    headers: {
      authorization: `Bearer ${reviewerToken ?? token}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token, ...(settings.audiences.length > 0 ? { audiences: settings.audiences } : {}) },
    }),
    ...(settings.caCert === null ? {} : { ca: settings.caCert }),
    timeoutMs,
  });
  if (res.status === 401 || res.status === 403) {
    throw new IdentityRejectedError(
      'upstream_rejected',
      `the api server refused the ${reviewerToken === null ? "caller's token as reviewer" : 'reviewer token'} (${res.status})`,
    );
  }
  if (res.status !== 200 && res.status !== 201) {
    throw new UpstreamUnavailableError(`TokenReview: status ${res.status}`);
  }
  let status: TokenReviewStatus;
  try {
    status = (JSON.parse(res.body) as { status?: TokenReviewStatus }).status ?? {};
  } catch {
    throw new UpstreamUnavailableError('TokenReview: the answer is not JSON');
  }
  if (status.authenticated !== true) {
    throw new IdentityRejectedError(
      'upstream_rejected',
      'TokenReview: the token is not authenticated',
    );
  }
  if (
    settings.audiences.length > 0 &&
    !(status.audiences ?? []).some((a) => settings.audiences.includes(a))
  ) {
    throw new IdentityRejectedError('audience', 'the token is not for an expected audience');
  }
  const username = status.user?.username ?? '';
  const match = SERVICE_ACCOUNT_USER.exec(username);
  if (!match) {
    throw new IdentityRejectedError(
      'not_allowed',
      `${shown(username || '(no user)')} is not a service account`,
    );
  }
  const [, namespace, serviceAccount] = match as unknown as [string, string, string];
  if (!settings.namespaces.includes(namespace)) {
    throw new IdentityRejectedError('not_allowed', `namespace ${shown(namespace)} is not allowed`);
  }
  if (!settings.serviceAccounts.includes(serviceAccount)) {
    throw new IdentityRejectedError(
      'not_allowed',
      `service account ${shown(serviceAccount)} is not allowed`,
    );
  }
  return { subject: username };
}
