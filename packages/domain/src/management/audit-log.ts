import type { AuditEntry } from '../model.ts';
import { requireWorkspace } from './lookup.ts';
import type { ManagementPorts } from './ports.ts';

/**
 * Where audit rows about the console itself (not about one workspace) live: rejected sign-ins.
 * Workspace ids are random UUIDs, so this one never names a workspace.
 */
export const CONSOLE_AUDIT_ID = 'console';

/** The audit log: who changed what, newest first; never a secret value. */
export class AuditLog {
  constructor(private readonly deps: Pick<ManagementPorts, 'store'>) {}

  async list(workspace: string, limit = 100): Promise<AuditEntry[]> {
    const ws = await requireWorkspace(this.deps.store, workspace);
    return this.deps.store.listAudit(ws.id, limit);
  }

  /** Rows about the console itself: rejected bearer tokens. */
  listConsole(limit = 100): Promise<AuditEntry[]> {
    return this.deps.store.listAudit(CONSOLE_AUDIT_ID, limit);
  }
}
