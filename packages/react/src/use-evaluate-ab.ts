/** `useEvaluateAB`: the server's AB evaluation of some flags for one user, as state. */
import { useEffect, useMemo, useState } from './react-api.ts';
import { useServiceClient } from './service-provider.ts';

/** The answer of {@link useEvaluateAB}. */
export interface EvaluateABState {
  /** Every requested key's result; the last answer's while a new one loads. */
  data: Record<string, boolean> | undefined;
  /** Why the last request failed (a `ServiceError`, or a `TypeError` for bad arguments). */
  error: Error | null;
  /** A request is on its way. */
  loading: boolean;
}

/**
 * Evaluates `keys` for `userId` with AB Testing semantics (`POST /v1/flags/evaluate-ab`) and
 * again whenever the keys, the user or the attributes change in value (a new array or object
 * with the same content asks nothing new). An answer that arrives after its inputs changed is
 * dropped.
 */
export function useEvaluateAB(
  keys: readonly string[],
  userId: string,
  attributes: Record<string, unknown> = {},
): EvaluateABState {
  const client = useServiceClient();
  const input = JSON.stringify([keys, userId, attributes]);
  /** The last answer, and the inputs it answered. */
  const [answer, setAnswer] = useState<{
    input?: string;
    data?: Record<string, boolean>;
    error: Error | null;
  }>({ error: null });
  useEffect(() => {
    let current = true;
    const [k, u, a] = JSON.parse(input) as [string[], string, Record<string, unknown>];
    client.evaluateAB(k, u, a).then(
      (data) => current && setAnswer({ input, data, error: null }),
      (error: Error) => current && setAnswer({ input, error }),
    );
    return () => {
      current = false;
    };
  }, [client, input]);
  // Loading from the first render with new inputs on, the last answer's data meanwhile.
  const loading = answer.input !== input;
  return useMemo(
    () => ({ data: answer.data, error: loading ? null : answer.error, loading }),
    [answer, loading],
  );
}
