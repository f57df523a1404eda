import { ConflictError } from '../errors.ts';
import type { Project } from '../model.ts';
import { assertName, assertSlug } from '../names.ts';
import { requireProject, requireWorkspace } from './lookup.ts';
import type { ManagementPorts } from './ports.ts';

export interface NewProject {
  slug: string;
  name: string;
}

export interface ProjectPatch {
  /** The AB Testing add-on. */
  abTesting?: boolean;
}

/** Projects of a workspace: each holds values, services and API keys. */
export class ProjectManagement {
  constructor(
    private readonly deps: Pick<ManagementPorts, 'store'>,
    private readonly actor: string,
  ) {}

  async create(workspace: string, input: NewProject): Promise<Project> {
    assertSlug('slug', input.slug);
    assertName('name', input.name);
    return this.deps.store.transaction(async (tx) => {
      const ws = await requireWorkspace(tx, workspace);
      if (await tx.findProject(ws.id, input.slug)) {
        throw new ConflictError(`project '${input.slug}' exists`);
      }
      const project = await tx.insertProject({ workspaceId: ws.id, ...input });
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'project.create',
        target: input.slug,
      });
      return project;
    });
  }

  async update(workspace: string, project: string, patch: ProjectPatch): Promise<Project> {
    return this.deps.store.transaction(async (tx) => {
      const { ws, project: p } = await requireProject(tx, workspace, project);
      const updated = await tx.updateProject(p.id, patch);
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'project.update',
        target: `${project} ab_testing=${updated.abTesting}`,
      });
      return updated;
    });
  }

  async list(workspace: string): Promise<Project[]> {
    const ws = await requireWorkspace(this.deps.store, workspace);
    return this.deps.store.listProjects(ws.id);
  }
}
