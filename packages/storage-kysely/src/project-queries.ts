/**
 * Projects and their services, and the whole state of a project as its views are built from.
 * Creating either, or changing a project, is a change, so that api instances learn of it.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { NotFoundError, type Project, type ProjectState, type Service } from '@svc/domain';
import type { Database } from './database.ts';
import {
  groupByScope,
  toConfig,
  toFlag,
  toFlag01,
  toProject,
  toSecretVersion,
  toService,
} from './rows.ts';
import { currentSecretVersions } from './secret-queries.ts';
import type { StoreDialect } from './store-dialect.ts';
import { conflictOnDuplicate, type WriteContext } from './write-context.ts';

export async function findProject(
  db: Kysely<Database>,
  workspaceId: string,
  slug: string,
): Promise<Project | undefined> {
  const row = await db
    .selectFrom('projects')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row && toProject(row);
}

export async function findProjectById(
  db: Kysely<Database>,
  id: string,
): Promise<Project | undefined> {
  const row = await db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toProject(row);
}

export async function listProjects(
  db: Kysely<Database>,
  dialect: StoreDialect,
  workspaceId?: string,
): Promise<Project[]> {
  let query = db.selectFrom('projects').selectAll();
  if (workspaceId !== undefined) query = query.where('workspace_id', '=', workspaceId);
  const rows = await query
    .orderBy(dialect.byCodePoint('workspace_id'))
    .orderBy(dialect.byCodePoint('slug'))
    .execute();
  return rows.map(toProject);
}

export async function findService(
  db: Kysely<Database>,
  projectId: string,
  slug: string,
): Promise<Service | undefined> {
  const row = await db
    .selectFrom('services')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row && toService(row);
}

export async function listServices(
  db: Kysely<Database>,
  dialect: StoreDialect,
  projectId: string,
): Promise<Service[]> {
  const rows = await db
    .selectFrom('services')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy(dialect.byCodePoint('slug'))
    .execute();
  return rows.map(toService);
}

/**
 * The dialect's own read of the whole project if it has one, otherwise one query per table,
 * whatever the number of items (run it in one snapshot to have the revision match the values).
 */
export async function loadProjectState(
  db: Kysely<Database>,
  dialect: StoreDialect,
  projectId: string,
): Promise<ProjectState | undefined> {
  if (dialect.loadProjectState) return dialect.loadProjectState(db, projectId);
  const project = await findProjectById(db, projectId);
  if (!project) return undefined;
  const services = await listServices(db, dialect, projectId);
  const configs = await db
    .selectFrom('configs')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy(dialect.byCodePoint('scope'))
    .orderBy(dialect.byCodePoint('key'))
    .execute();
  const flags = await db
    .selectFrom('flags')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy(dialect.byCodePoint('scope'))
    .orderBy(dialect.byCodePoint('key'))
    .execute();
  const secrets = await currentSecretVersions(db, projectId)
    .orderBy(dialect.byCodePoint('v.scope'))
    .orderBy(dialect.byCodePoint('v.key'))
    .execute();
  return {
    project,
    services,
    configs: groupByScope(configs, toConfig),
    flags: groupByScope(flags, toFlag),
    secrets: groupByScope(secrets, toSecretVersion),
  };
}

export async function insertProject(
  tx: WriteContext,
  input: { workspaceId: string; slug: string; name: string },
): Promise<Project> {
  const row = {
    id: randomUUID(),
    workspace_id: input.workspaceId,
    slug: input.slug,
    name: input.name,
    ab_testing: 0 as const,
    revision: 0,
    created_at: tx.clock.now(),
  };
  await conflictOnDuplicate(tx, `project '${input.slug}' exists`, () =>
    tx.db.insertInto('projects').values(row).execute(),
  );
  await tx.changeLog.append({
    workspaceId: row.workspace_id,
    projectId: row.id,
    kind: 'project',
    key: row.slug,
  });
  return toProject(row);
}

export async function updateProject(
  { db, changeLog }: WriteContext,
  id: string,
  patch: { abTesting?: boolean },
): Promise<Project> {
  if (patch.abTesting !== undefined) {
    await db
      .updateTable('projects')
      .set({ ab_testing: toFlag01(patch.abTesting) })
      .where('id', '=', id)
      .execute();
  }
  const project = await findProjectById(db, id);
  if (!project) throw new NotFoundError(`no project '${id}'`);
  await changeLog.append({
    workspaceId: project.workspaceId,
    projectId: id,
    kind: 'project',
    key: project.slug,
  });
  return project;
}

export async function insertService(
  tx: WriteContext,
  input: { projectId: string; slug: string; name: string },
): Promise<Service> {
  const project = await findProjectById(tx.db, input.projectId);
  if (!project) throw new NotFoundError(`no project '${input.projectId}'`);
  const row = {
    id: randomUUID(),
    project_id: input.projectId,
    slug: input.slug,
    name: input.name,
    created_at: tx.clock.now(),
  };
  await conflictOnDuplicate(tx, `service '${input.slug}' exists`, () =>
    tx.db.insertInto('services').values(row).execute(),
  );
  await tx.changeLog.append({
    workspaceId: project.workspaceId,
    projectId: project.id,
    serviceId: row.id,
    kind: 'service',
    key: row.slug,
  });
  return toService(row);
}
