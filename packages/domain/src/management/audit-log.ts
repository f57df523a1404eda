import type { AuditEntry } from '../model.ts';
import { requireWorkspace } from './lookup.ts';
import type { ManagementPorts } from './ports.ts';

/** The audit log: who changed what, newest first; never a secret value. */
export class AuditLog {
  constructor(private readonly deps: Pick<ManagementPorts, 'store'>) {}

  async list(workspace: string, limit = 100): Promise<AuditEntry[]> {
    const ws = await requireWorkspace(this.deps.store, workspace);
    return this.deps.store.listAudit(ws.id, limit);
  }
}
