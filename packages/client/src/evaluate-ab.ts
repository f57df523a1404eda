/** `POST /v1/flags/evaluate-ab`: flags evaluated for one user, always over the network. */
import { offContract } from './errors.ts';
import { isObject } from './snapshot.ts';
import { readJson, type Transport } from './transport.ts';

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
    !isObject(attributes)
  ) {
    throw new TypeError('evaluateAB(keys: string[], userId: string, attributes?: object)');
  }
  const response = await transport.send('/v1/flags/evaluate-ab', 'evaluateAB', {
    method: 'POST',
    body: { flags: keys, user_id: userId, attributes },
  });
  const body = await readJson(response, 'evaluateAB');
  const results = (body as { results?: unknown } | null)?.results;
  if (!isObject(results) || !Object.values(results).every((v) => typeof v === 'boolean')) {
    throw offContract('evaluateAB: results');
  }
  return results as Record<string, boolean>;
}
