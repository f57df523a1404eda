/**
 * How the management slices find what a request names by its slugs. A name that cannot be a slug
 * cannot exist either: it is "not found" at once, without a query (and so never reaches a
 * database that would choke on it, such as PostgreSQL on a NUL character).
 */
import { NotFoundError } from '../errors.ts';
import type { Project, Scope, Service, Workspace } from '../model.ts';
import { isSlug } from '../names.ts';
import type { StoreReader } from '../ports.ts';

/** Addresses a scope by slugs, as the management API does. */
export interface ScopeRef {
  workspace: string;
  project: string;
  /** Service slug for service level; absent for project level. */
  service?: string;
}

export async function requireWorkspace(reader: StoreReader, slug: string): Promise<Workspace> {
  const ws = isSlug(slug) ? await reader.findWorkspaceBySlug(slug) : undefined;
  if (!ws) throw new NotFoundError(`no workspace '${slug}'`);
  return ws;
}

export async function requireProject(
  reader: StoreReader,
  workspace: string,
  slug: string,
): Promise<{ ws: Workspace; project: Project }> {
  const ws = await requireWorkspace(reader, workspace);
  const project = isSlug(slug) ? await reader.findProject(ws.id, slug) : undefined;
  if (!project) throw new NotFoundError(`no project '${slug}' in workspace '${workspace}'`);
  return { ws, project };
}

export async function requireService(
  reader: StoreReader,
  project: Project,
  slug: string,
): Promise<Service> {
  const service = isSlug(slug) ? await reader.findService(project.id, slug) : undefined;
  if (!service) throw new NotFoundError(`no service '${slug}' in project '${project.slug}'`);
  return service;
}

/** The scope `ref` names, and the id of its workspace (for the audit row). */
export async function resolveScope(
  reader: StoreReader,
  ref: ScopeRef,
): Promise<{ scope: Scope; workspaceId: string }> {
  const { ws, project } = await requireProject(reader, ref.workspace, ref.project);
  const serviceId =
    ref.service === undefined ? null : (await requireService(reader, project, ref.service)).id;
  return { scope: { projectId: project.id, serviceId }, workspaceId: ws.id };
}

/** `shop` or `shop/checkout`: where a value lives, as audit rows name it. */
export function scopeLabel(ref: ScopeRef): string {
  return ref.service === undefined ? ref.project : `${ref.project}/${ref.service}`;
}
