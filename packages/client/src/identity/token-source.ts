/**
 * Where each method's proof comes from, asked again at every exchange (platform tokens rotate):
 * Kubernetes — the projected service-account token file; OIDC — a token file or a callback;
 * GCP — the metadata server's identity token for the audience; Azure — the instance metadata
 * service's token for the audience; AWS — a signed `GetCallerIdentity` (aws-request.ts).
 */
import { open } from 'node:fs/promises';
import { ServiceError } from '../errors.ts';
import { signedCallerIdentity, type SignedAwsRequest } from './aws-request.ts';
import { boundedFetch, MAX_ANSWER_BYTES, type FetchContext } from './bounded-fetch.ts';
import type { ResolvedIdentity } from './workload-identity.ts';

/** What the exchange sends beside `identity_id`. */
export type WorkloadCredential = { token: string } | { aws: SignedAwsRequest };

export type CredentialSource = () => Promise<WorkloadCredential>;

export const KUBERNETES_TOKEN_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/token';
export const GCP_METADATA_URL = 'http://metadata.google.internal';
export const AZURE_METADATA_URL = 'http://169.254.169.254';

/** The credential source of `identity`'s method. */
export function credentialSource(
  identity: ResolvedIdentity,
  context: FetchContext,
): CredentialSource {
  switch (identity.method) {
    case 'kubernetes':
      return async () => ({ token: await tokenFile(identity.tokenFile ?? KUBERNETES_TOKEN_FILE) });
    case 'oidc': {
      const { tokenFile: file, token } = identity;
      return async () => ({ token: file ? await tokenFile(file) : await callbackToken(token!) });
    }
    case 'gcp':
      return async () => ({ token: await gcpToken(identity, context) });
    case 'azure':
      return async () => ({ token: await azureToken(identity, context) });
    case 'aws': {
      const sign = signedCallerIdentity(identity);
      return async () => ({ aws: await sign() });
    }
  }
}

/** A token file's content, trimmed; at most 64 KiB. */
async function tokenFile(path: string): Promise<string> {
  let text: string;
  try {
    const file = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(MAX_ANSWER_BYTES + 1);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
      if (bytesRead > MAX_ANSWER_BYTES) throw new Error(`larger than ${MAX_ANSWER_BYTES} bytes`);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await file.close();
    }
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ServiceError(`identity: cannot read the token file ${path} (${reason})`, {
      cause: error,
    });
  }
  return nonEmpty(text, `the token file ${path}`);
}

async function callbackToken(token: () => string | Promise<string>): Promise<string> {
  let value: unknown;
  try {
    value = await token();
  } catch (error) {
    throw new ServiceError('identity: the token callback failed', { cause: error });
  }
  if (typeof value !== 'string' || value.length > MAX_ANSWER_BYTES) {
    throw new ServiceError('identity: the token callback must give a string (at most 64 KiB)');
  }
  return nonEmpty(value, 'the token callback');
}

/** GCP: an ID token for the audience, with the full claims (`email`, project). */
async function gcpToken(identity: ResolvedIdentity, context: FetchContext): Promise<string> {
  const base = (identity.metadataUrl ?? GCP_METADATA_URL).replace(/\/+$/, '');
  const query = new URLSearchParams({ audience: identity.audience!, format: 'full' });
  const url = `${base}/computeMetadata/v1/instance/service-accounts/default/identity?${query}`;
  const answer = await boundedFetch(context, 'identity: the GCP metadata server', url, {
    headers: { 'metadata-flavor': 'Google' },
  });
  if (answer.status !== 200) {
    throw new ServiceError(`identity: the GCP metadata server answered HTTP ${answer.status}`);
  }
  return nonEmpty(answer.text, 'the GCP metadata server');
}

/** Azure: a managed identity's access token for the audience (the IMDS `resource`). */
async function azureToken(identity: ResolvedIdentity, context: FetchContext): Promise<string> {
  const base = (identity.metadataUrl ?? AZURE_METADATA_URL).replace(/\/+$/, '');
  const query = new URLSearchParams({ 'api-version': '2018-02-01', resource: identity.audience! });
  if (identity.clientId) query.set('client_id', identity.clientId);
  const url = `${base}/metadata/identity/oauth2/token?${query}`;
  const answer = await boundedFetch(context, 'identity: the Azure metadata service', url, {
    headers: { metadata: 'true' },
  });
  if (answer.status !== 200) {
    throw new ServiceError(`identity: the Azure metadata service answered HTTP ${answer.status}`);
  }
  let token: unknown;
  try {
    token = (JSON.parse(answer.text) as { access_token?: unknown }).access_token;
  } catch {
    // refused below
  }
  if (typeof token !== 'string') {
    throw new ServiceError('identity: the Azure metadata service gave no access_token');
  }
  return nonEmpty(token, 'the Azure metadata service');
}

function nonEmpty(token: string, from: string): string {
  const trimmed = token.trim();
  if (trimmed === '') throw new ServiceError(`identity: ${from} gave an empty token`);
  return trimmed;
}
