import { ConflictError } from '../errors.ts';
import type { BillingStatus, Workspace } from '../model.ts';
import { assertName, assertSlug } from '../names.ts';
import { requireWorkspace } from './lookup.ts';
import type { ManagementPorts } from './ports.ts';

export interface NewWorkspace {
  slug: string;
  name: string;
}

export interface WorkspacePatch {
  billingStatus?: BillingStatus;
}

/** Workspaces: the tenants of a deployment, each with its billing status. */
export class WorkspaceManagement {
  constructor(
    private readonly deps: Pick<ManagementPorts, 'store'>,
    private readonly actor: string,
  ) {}

  async create(input: NewWorkspace): Promise<Workspace> {
    assertSlug('slug', input.slug);
    assertName('name', input.name);
    return this.deps.store.transaction(async (tx) => {
      if (await tx.findWorkspaceBySlug(input.slug)) {
        throw new ConflictError(`workspace '${input.slug}' exists`);
      }
      const ws = await tx.insertWorkspace(input);
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'workspace.create',
        target: ws.slug,
      });
      return ws;
    });
  }

  async update(slug: string, patch: WorkspacePatch): Promise<Workspace> {
    return this.deps.store.transaction(async (tx) => {
      const ws = await requireWorkspace(tx, slug);
      const updated = await tx.updateWorkspace(ws.id, patch);
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'workspace.update',
        target: `${slug} billing_status=${updated.billingStatus}`,
      });
      return updated;
    });
  }

  get(slug: string): Promise<Workspace> {
    return requireWorkspace(this.deps.store, slug);
  }

  list(): Promise<Workspace[]> {
    return this.deps.store.listWorkspaces();
  }
}
