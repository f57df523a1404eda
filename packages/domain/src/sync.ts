import type { View } from './views/view.ts';
import type { Principal, ReadModel } from './views/read-model.ts';

export interface SyncRequest {
  slug: string;
  apiKey: string | undefined;
}

export interface SyncResult {
  principal: Principal;
  view: View;
}

/** Runs after authentication and before the view is served (e.g. sync quarantine). */
export type SyncGuard = (principal: Principal) => void;

/** `GET /v1/sync`: the caller's view, answered from memory. */
export function syncSnapshot(
  model: ReadModel,
  request: SyncRequest,
  guard?: SyncGuard,
): SyncResult {
  const principal = model.authenticate(request.slug, request.apiKey);
  guard?.(principal);
  const view = model.view(principal.viewId);
  if (!view) throw new Error(`view ${principal.viewId} is not loaded`);
  return { principal, view };
}
