/** `POST /v1/flags/evaluate-ab`: flags evaluated for one user, always over the network. */
import { ServiceError } from './errors.ts';
import { errorOf, type Transport } from './transport.ts';

/**
 * The server's results for `keys`; a `TypeError` for bad arguments (no request), a client
 * error for a failed answer.
 */
export async function evaluateAB(
  transport: Transport,
  keys: readonly string[],
  userId: string,
  attributes: Record<string, unknown>,
): Promise<Record<string, boolean>> {
  if (
    !Array.isArray(keys) ||
    keys.some((key) => typeof key !== 'string') ||
    typeof userId !== 'string' ||
    typeof attributes !== 'object' ||
    !attributes ||
    Array.isArray(attributes)
  ) {
    throw new TypeError('evaluateAB takes keys: string[], userId: string, attributes: object');
  }
  const response = await transport.send('/v1/flags/evaluate-ab', {
    method: 'POST',
    headers: { accept: 'application/json' },
    body: { flags: keys, user_id: userId, attributes },
  });
  if (!response.ok) throw await errorOf(response, 'evaluateAB');
  const body = await transport.json(response, 'evaluateAB');
  const results = (body as { results?: unknown } | null)?.results;
  if (
    typeof results !== 'object' ||
    results === null ||
    !Object.values(results).every((v) => typeof v === 'boolean')
  ) {
    throw new ServiceError('evaluateAB: the answer has no results');
  }
  return results as Record<string, boolean>;
}
