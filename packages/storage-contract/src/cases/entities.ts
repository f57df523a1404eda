/** Workspaces, projects and services: round trips, uniqueness, updates. */
import { describe, expect, it } from 'vitest';
import { ConflictError } from '@svc/domain';
import { T0, int, q, seed, sortById, type Harness } from '../fixtures.ts';

export function describeEntities(h: Harness): void {
  describe('workspaces', () => {
    it('inserts a workspace and finds it by slug and by id', async () => {
      h.clock.set(T0 + 5);
      const ws = await h.store.transaction((tx) =>
        tx.insertWorkspace({ slug: 'acme', name: 'Acme' }),
      );
      expect(ws).toStrictEqual({
        id: expect.any(String),
        slug: 'acme',
        name: 'Acme',
        billingStatus: 'ok',
        createdAt: T0 + 5,
      });
      expect(ws.id.length).toBeGreaterThan(0);
      expect(await h.store.findWorkspaceBySlug('acme')).toStrictEqual(ws);
      expect(await h.store.findWorkspaceById(ws.id)).toStrictEqual(ws);
      expect(await h.store.findWorkspaceBySlug('other')).toBeUndefined();
      expect(await h.store.findWorkspaceById('no-such-id')).toBeUndefined();
      const rows = await h.rawRows(`select * from workspaces where id = ${q(ws.id)}`);
      expect(rows.map((r) => [r.slug, r.name, r.billing_status, int(r.created_at)])).toEqual([
        ['acme', 'Acme', 'ok', T0 + 5],
      ]);
    });

    it('lists every workspace, each with its own id', async () => {
      const a = await h.store.transaction((tx) => tx.insertWorkspace({ slug: 'a', name: 'A' }));
      const b = await h.store.transaction((tx) => tx.insertWorkspace({ slug: 'b', name: 'B' }));
      expect(a.id).not.toBe(b.id);
      const listed = await h.store.listWorkspaces();
      expect(sortById(listed)).toStrictEqual(sortById([a, b]));
    });

    it('rejects a duplicate slug with ConflictError and keeps the first', async () => {
      const first = await h.store.transaction((tx) =>
        tx.insertWorkspace({ slug: 'acme', name: 'First' }),
      );
      const seqBefore = await h.store.lastChangeSeq();
      await expect(
        h.store.transaction((tx) => tx.insertWorkspace({ slug: 'acme', name: 'Second' })),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await h.store.listWorkspaces()).toStrictEqual([first]);
      expect(await h.rawRows(`select id from workspaces`)).toHaveLength(1);
      expect(await h.store.lastChangeSeq()).toBe(seqBefore);
    });

    it('updates the billing status, and an empty patch changes nothing', async () => {
      const ws = await h.store.transaction((tx) => tx.insertWorkspace({ slug: 'acme', name: 'A' }));
      const overdue = await h.store.transaction((tx) =>
        tx.updateWorkspace(ws.id, { billingStatus: 'overdue' }),
      );
      expect(overdue).toStrictEqual({ ...ws, billingStatus: 'overdue' });
      expect(await h.store.findWorkspaceById(ws.id)).toStrictEqual(overdue);
      const unchanged = await h.store.transaction((tx) => tx.updateWorkspace(ws.id, {}));
      expect(unchanged).toStrictEqual(overdue);
      const ok = await h.store.transaction((tx) =>
        tx.updateWorkspace(ws.id, { billingStatus: 'ok' }),
      );
      expect(ok).toStrictEqual(ws);
      const rows = await h.rawRows(`select billing_status from workspaces`);
      expect(rows).toEqual([{ billing_status: 'ok' }]);
    });

    it('rejects an update of an unknown workspace', async () => {
      await expect(
        h.store.transaction((tx) => tx.updateWorkspace('no-such-id', { billingStatus: 'overdue' })),
      ).rejects.toThrow();
    });
  });

  describe('projects', () => {
    it('inserts a project with the add-on off and revision 0, and finds it', async () => {
      const ws = await h.store.transaction((tx) => tx.insertWorkspace({ slug: 'acme', name: 'A' }));
      h.clock.set(T0 + 7);
      const project = await h.store.transaction((tx) =>
        tx.insertProject({ workspaceId: ws.id, slug: 'shop', name: 'Shop' }),
      );
      expect(project).toStrictEqual({
        id: expect.any(String),
        workspaceId: ws.id,
        slug: 'shop',
        name: 'Shop',
        abTesting: false,
        revision: 0,
        createdAt: T0 + 7,
      });
      expect(await h.store.findProject(ws.id, 'shop')).toStrictEqual(project);
      expect(await h.store.findProjectById(project.id)).toStrictEqual(project);
      expect(await h.store.findProject(ws.id, 'other')).toBeUndefined();
      expect(await h.store.findProject('no-such-id', 'shop')).toBeUndefined();
      expect(await h.store.findProjectById('no-such-id')).toBeUndefined();
    });

    it('lists the projects of one workspace or of all', async () => {
      const one = await seed(h.store, 'one');
      const two = await seed(h.store, 'two');
      const extra = await h.store.transaction((tx) =>
        tx.insertProject({ workspaceId: one.workspace.id, slug: 'blog', name: 'Blog' }),
      );
      expect(sortById(await h.store.listProjects(one.workspace.id))).toStrictEqual(
        sortById([one.project, extra]),
      );
      expect(await h.store.listProjects(two.workspace.id)).toStrictEqual([two.project]);
      expect(sortById(await h.store.listProjects())).toStrictEqual(
        sortById([one.project, extra, two.project]),
      );
    });

    it('allows a slug once per workspace', async () => {
      const one = await seed(h.store, 'one');
      const two = await seed(h.store, 'two');
      expect(one.project.slug).toBe(two.project.slug);
      await expect(
        h.store.transaction((tx) =>
          tx.insertProject({ workspaceId: one.workspace.id, slug: 'shop', name: 'Again' }),
        ),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await h.store.listProjects(one.workspace.id)).toStrictEqual([one.project]);
    });

    it('switches the AB Testing add-on without touching the revision', async () => {
      const { project } = await seed(h.store);
      const on = await h.store.transaction((tx) =>
        tx.updateProject(project.id, { abTesting: true }),
      );
      expect(on).toStrictEqual({ ...project, abTesting: true });
      expect(await h.store.findProjectById(project.id)).toStrictEqual(on);
      expect(await h.store.transaction((tx) => tx.updateProject(project.id, {}))).toStrictEqual(on);
      const off = await h.store.transaction((tx) =>
        tx.updateProject(project.id, { abTesting: false }),
      );
      expect(off).toStrictEqual(project);
      const rows = await h.rawRows(`select ab_testing, revision from projects`);
      expect(rows.map((r) => [int(r.ab_testing), int(r.revision)])).toEqual([[0, 0]]);
    });

    it('rejects an update of an unknown project', async () => {
      await expect(
        h.store.transaction((tx) => tx.updateProject('no-such-id', { abTesting: true })),
      ).rejects.toThrow();
    });
  });

  describe('services', () => {
    it('inserts a service and finds it by project and slug', async () => {
      const { project } = await seed(h.store);
      h.clock.set(T0 + 9);
      const service = await h.store.transaction((tx) =>
        tx.insertService({ projectId: project.id, slug: 'worker', name: 'Worker' }),
      );
      expect(service).toStrictEqual({
        id: expect.any(String),
        projectId: project.id,
        slug: 'worker',
        name: 'Worker',
        createdAt: T0 + 9,
      });
      expect(await h.store.findService(project.id, 'worker')).toStrictEqual(service);
      expect(await h.store.findService(project.id, 'nope')).toBeUndefined();
      expect(await h.store.findService('no-such-id', 'worker')).toBeUndefined();
    });

    it('lists the services of one project only', async () => {
      const one = await seed(h.store, 'one');
      const two = await seed(h.store, 'two');
      const worker = await h.store.transaction((tx) =>
        tx.insertService({ projectId: one.project.id, slug: 'worker', name: 'Worker' }),
      );
      expect(sortById(await h.store.listServices(one.project.id))).toStrictEqual(
        sortById([one.service, worker]),
      );
      expect(await h.store.listServices(two.project.id)).toStrictEqual([two.service]);
      expect(await h.store.listServices('no-such-id')).toStrictEqual([]);
    });

    it('allows a slug once per project', async () => {
      const one = await seed(h.store, 'one');
      await seed(h.store, 'two');
      await expect(
        h.store.transaction((tx) =>
          tx.insertService({ projectId: one.project.id, slug: 'api', name: 'Again' }),
        ),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await h.store.listServices(one.project.id)).toStrictEqual([one.service]);
    });
  });
}
