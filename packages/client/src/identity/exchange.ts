/**
 * The exchange: `POST {baseUrl}/v1/auth/token` with the identity's id and the workload's
 * proof (no API key header), answered with a short-lived key of the usual shape.
 */
import { keyTypeOf, type KeyType } from '../api-key.ts';
import {
  ServiceError,
  ServiceRateLimitedError,
  ServiceUnauthorizedError,
  type ServiceErrorDetails,
} from '../errors.ts';
import { retryAfterSeconds, USER_AGENT } from '../transport.ts';
import { boundedFetch, type FetchContext } from './bounded-fetch.ts';
import type { WorkloadCredential } from './token-source.ts';

/** A key the exchange minted. */
export interface MintedKey {
  key: string;
  keyType: KeyType;
  /** Its lifetime from the moment the answer arrived, in milliseconds (`expires_in`). */
  lifetimeMs: number;
}

const WHAT = 'identity exchange';

/**
 * Exchanges `credential` for a key.
 *
 * @throws {@link ServiceUnauthorizedError} on 401 (the message names the failed check),
 *   {@link ServiceRateLimitedError} on 429 (`retryAfter`), {@link ServiceError} for anything
 *   else (`upstream_unavailable` on 502, a network failure, a malformed answer).
 */
export async function exchangeKey(
  context: FetchContext & { baseUrl: string },
  identityId: string,
  credential: WorkloadCredential,
): Promise<MintedKey> {
  const answer = await boundedFetch(context, `${WHAT}:`, `${context.baseUrl}/v1/auth/token`, {
    method: 'POST',
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
    },
    body: JSON.stringify({ identity_id: identityId, ...credential }),
  });
  const body = parse(answer.text);
  if (answer.status !== 200) {
    const code = typeof body?.code === 'string' ? body.code : undefined;
    const detail = typeof body?.detail === 'string' ? `: ${body.detail}` : '';
    const message = `${WHAT}: HTTP ${answer.status}${code ? ` ${code}` : ''}${detail}`;
    const details: ServiceErrorDetails = { status: answer.status, code };
    if (answer.status === 401) throw new ServiceUnauthorizedError(message, details);
    if (answer.status === 429) {
      const retryAfter = retryAfterSeconds(answer.headers.get('retry-after'));
      throw new ServiceRateLimitedError(message, { ...details, retryAfter });
    }
    throw new ServiceError(message, details);
  }
  const key = typeof body?.key === 'string' ? body.key : '';
  const keyType = keyTypeOf(key);
  const expiresIn = body?.expires_in;
  if (keyType === undefined || typeof expiresIn !== 'number' || !(expiresIn > 0)) {
    throw new ServiceError(`${WHAT}: the answer has no valid key and expires_in`);
  }
  return { key, keyType, lifetimeMs: expiresIn * 1000 };
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
