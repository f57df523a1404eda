/**
 * Targeted flag evaluations through `evaluate-ab`: the evaluations asked for one user (and the
 * same attributes) in one turn of the event loop go out as one request of up to 100 flags, so a
 * request handler that reads ten flags for its user costs one round trip, not ten.
 */
import type { ServiceClient } from '@svc/client';

/** The server's limit of flags per evaluate-ab request. */
const MAX_FLAGS = 100;

interface Batch {
  userId: string;
  attributes: Record<string, unknown>;
  keys: Set<string>;
  answer?: Promise<Record<string, boolean>>;
}

export class UserEvaluations {
  /** Batches still collecting, by user and attributes. */
  private readonly open = new Map<string, Batch>();

  constructor(private readonly client: () => ServiceClient) {}

  /** The flag's answer for the user, as evaluate-ab gives it. */
  async evaluate(
    key: string,
    userId: string,
    attributes: Record<string, unknown>,
  ): Promise<boolean> {
    const id = JSON.stringify([userId, attributes]);
    let batch = this.open.get(id);
    if (!batch || batch.keys.size >= MAX_FLAGS) {
      batch = { userId, attributes, keys: new Set() };
      this.open.set(id, batch);
      const sending = batch;
      // Sent once this turn of the event loop's evaluations have joined it.
      sending.answer = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        if (this.open.get(id) === sending) this.open.delete(id);
        return this.client().evaluateAB([...sending.keys], userId, attributes);
      });
    }
    batch.keys.add(key);
    const results = await batch.answer!;
    return results[key] === true;
  }
}
