import type { View } from './views/view.ts';
import type { Principal, ReadModel } from './views/read-model.ts';

/**
 * Runs after authentication and before a sync is answered (the sync quarantine). `client` is
 * the caller's address: a public key is shared by every browser of an app, so what counts per
 * caller must not count per key alone.
 */
export type SyncGuard = (principal: Principal, client: string) => void;

/** `GET /v1/sync` (and the stream): the caller's view, answered from memory. */
export function syncView(
  model: ReadModel,
  principal: Principal,
  guard?: SyncGuard,
  client = '',
): View {
  guard?.(principal, client);
  return model.viewOf(principal);
}
