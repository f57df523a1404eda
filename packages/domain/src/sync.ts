import type { View } from './views/view.ts';
import type { Principal, ReadModel } from './views/read-model.ts';

/** Runs after authentication and before the view is served (e.g. sync quarantine). */
export type SyncGuard = (principal: Principal) => void;

/** `GET /v1/sync` (and the stream): the caller's view, answered from memory. */
export function syncView(model: ReadModel, principal: Principal, guard?: SyncGuard): View {
  guard?.(principal);
  return model.viewOf(principal);
}
