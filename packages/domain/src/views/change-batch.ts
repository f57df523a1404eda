/**
 * Every read one batch of the change log needs, made before anything of the batch is applied:
 * a read that fails (a database going away) then leaves the read model as it was, and the feed
 * offers the whole batch again. Each item is read once however often the batch changed it.
 */
import type { ApiKeyRecord, Change, Project, Workspace } from '../model.ts';
import type { ProjectState, StoreReader } from '../ports.ts';
import type { ItemUpdate } from './project-views.ts';

export interface BatchReads {
  workspaces: Workspace[];
  /** Projects the model holds whose record changed (the AB add-on). */
  projects: Project[];
  /** Projects new to the model, with everything they hold. */
  newProjects: ProjectState[];
  /** Services new to their project, in log order. */
  newServices: Array<{ projectId: string; serviceId: string }>;
  /** The new state of each changed value, by project. */
  items: Map<string, ItemUpdate[]>;
  /** Each changed key as it is now (undefined: gone). */
  keys: Array<{ id: string; record: ApiKeyRecord | undefined }>;
}

/** Reads what `changes` touched; `holds` says whether the model has a project's views. */
export async function readBatch(
  store: StoreReader,
  changes: Change[],
  holds: (projectId: string) => boolean,
): Promise<BatchReads> {
  const workspaceIds = new Set<string>();
  const projectIds = new Set<string>();
  const newServices: BatchReads['newServices'] = [];
  const keyIds = new Set<string>();
  // The last change of an item names its revision.
  const items = new Map<string, Change>();
  for (const change of changes) {
    if (change.kind === 'workspace') workspaceIds.add(change.workspaceId);
    else if (change.kind === 'key') keyIds.add(change.key);
    else if (change.projectId === null) continue;
    else if (change.kind === 'project') projectIds.add(change.projectId);
    else if (change.kind === 'service') {
      newServices.push({ projectId: change.projectId, serviceId: change.serviceId! });
    } else {
      const id = `${change.projectId}|${change.serviceId ?? ''}|${change.kind}|${change.key}`;
      items.delete(id);
      items.set(id, change);
    }
  }

  const reads: BatchReads = {
    workspaces: [],
    projects: [],
    newProjects: [],
    newServices,
    items: new Map(),
    keys: [],
  };
  for (const id of workspaceIds) {
    const ws = await store.findWorkspaceById(id);
    if (ws) reads.workspaces.push(ws);
  }
  for (const id of projectIds) {
    if (holds(id)) {
      const project = await store.findProjectById(id);
      if (project) reads.projects.push(project);
    } else {
      const state = await store.loadProjectState(id);
      if (state) reads.newProjects.push(state);
    }
  }
  for (const change of items.values()) {
    const projectId = change.projectId!;
    // A project loaded here is read whole, after this batch committed: it holds these items.
    if (!holds(projectId)) continue;
    let list = reads.items.get(projectId);
    if (!list) reads.items.set(projectId, (list = []));
    list.push(await readItem(store, change));
  }
  for (const id of keyIds) reads.keys.push({ id, record: await store.findApiKeyById(id) });
  return reads;
}

/** The item as it is now, for the views to take over. */
async function readItem(store: StoreReader, change: Change): Promise<ItemUpdate> {
  const scope = { projectId: change.projectId!, serviceId: change.serviceId };
  const at = { serviceId: change.serviceId, revision: change.revision ?? 0, key: change.key };
  if (change.kind === 'config') {
    return { ...at, kind: 'config', entry: await store.findConfig(scope, change.key) };
  }
  if (change.kind === 'flag') {
    return { ...at, kind: 'flag', entry: await store.findFlag(scope, change.key) };
  }
  return { ...at, kind: 'secret', entry: await store.findSecret(scope, change.key) };
}
