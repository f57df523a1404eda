import { ConflictError } from '../errors.ts';
import type { Service } from '../model.ts';
import { assertName, assertSlug } from '../names.ts';
import { requireProject } from './lookup.ts';
import type { ManagementPorts } from './ports.ts';

export interface NewService {
  slug: string;
  name: string;
}

/** Services of a project: each may override the project's values for keys bound to it. */
export class ServiceManagement {
  constructor(
    private readonly deps: Pick<ManagementPorts, 'store'>,
    private readonly actor: string,
  ) {}

  async create(workspace: string, project: string, input: NewService): Promise<Service> {
    assertSlug('slug', input.slug);
    assertName('name', input.name);
    return this.deps.store.transaction(async (tx) => {
      const { ws, project: p } = await requireProject(tx, workspace, project);
      if (await tx.findService(p.id, input.slug)) {
        throw new ConflictError(`service '${input.slug}' exists`);
      }
      const service = await tx.insertService({ projectId: p.id, ...input });
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'service.create',
        target: `${project}/${input.slug}`,
      });
      return service;
    });
  }

  async list(workspace: string, project: string): Promise<Service[]> {
    const { project: p } = await requireProject(this.deps.store, workspace, project);
    return this.deps.store.listServices(p.id);
  }
}
