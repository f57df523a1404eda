/** One change `apply` makes, as `plan` shows it: what, where, the detail, and its requests. */
import type { WriteRequest } from '../workspace/console-api.ts';

export type ChangeKind = 'create' | 'update' | 'delete';

export interface Change {
  kind: ChangeKind;
  /** `config ui.theme`, `project web`, … */
  target: string;
  /** The scope of an item change (`web`, `web/checkout`). */
  scope?: string;
  /** Readable detail lines (`rollout_percentage: 50 → 60`); never a secret value. */
  details: string[];
  /** The management API requests that make it, in order (a body may hold a secret value). */
  requests: WriteRequest[];
}

export interface Plan {
  workspace: string;
  changes: Change[];
  /** What apply leaves alone and why (items kept without --prune, names it cannot change). */
  notes: string[];
}

const SYMBOL: Record<ChangeKind, string> = { create: '+', update: '~', delete: '-' };

/** `+ config ui.theme in web`. */
export function changeLine(change: Change): string {
  const where = change.scope === undefined ? '' : ` in ${change.scope}`;
  return `${SYMBOL[change.kind]} ${change.target}${where}`;
}

/** `3 to create, 1 to update, 0 to delete`. */
export function countLine(changes: readonly Change[]): string {
  const count = (kind: ChangeKind) => changes.filter((c) => c.kind === kind).length;
  return `${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete`;
}
