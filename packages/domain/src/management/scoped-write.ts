import type { Scope } from '../model.ts';
import type { Store, StoreWriter } from '../ports.ts';
import { resolveScope, scopeLabel, type ScopeRef } from './lookup.ts';

/** One audited write to the values of the scope `ref` names. */
export interface ScopedWrite {
  actor: string;
  ref: ScopeRef;
  /** The audit action, as the audit log shows it (`config.put`, `secret.delete_version`…). */
  action: string;
  /** What the audit row names after the scope: the key, or `key@version`. */
  target: string;
}

/** Runs `fn` in one transaction on the scope and writes the audit row in that same transaction. */
export function writeInScope<T>(
  store: Pick<Store, 'transaction'>,
  write: ScopedWrite,
  fn: (tx: StoreWriter, scope: Scope) => Promise<T>,
): Promise<T> {
  return store.transaction(async (tx) => {
    const { scope, workspaceId } = await resolveScope(tx, write.ref);
    const result = await fn(tx, scope);
    await tx.appendAudit({
      workspaceId,
      actor: write.actor,
      action: write.action,
      target: `${scopeLabel(write.ref)} ${write.target}`,
    });
    return result;
  });
}
