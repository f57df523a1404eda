import type { ManagementRoute } from './route.ts';
import { createSlugged, patchProject } from './schemas.ts';
import { projectJson, serviceJson } from './views.ts';

const PROJECTS = '/workspaces/{ws}/projects';

/** Projects of a workspace, and the services of a project. */
export const projectRoutes: ManagementRoute[] = [
  {
    method: 'GET',
    path: PROJECTS,
    async handle(call) {
      call.res.json((await call.management.projects.list(call.param('ws'))).map(projectJson));
    },
  },
  {
    method: 'POST',
    path: PROJECTS,
    async handle(call) {
      const body = call.body(createSlugged);
      const project = await call.management.projects.create(call.param('ws'), body);
      call.res.status(201).json(projectJson(project));
    },
  },
  {
    method: 'PATCH',
    path: `${PROJECTS}/{p}`,
    async handle(call) {
      const body = call.body(patchProject);
      const project = await call.management.projects.update(call.param('ws'), call.param('p'), {
        abTesting: body.ab_testing,
      });
      call.res.json(projectJson(project));
    },
  },
  {
    method: 'GET',
    path: `${PROJECTS}/{p}/services`,
    async handle(call) {
      const services = await call.management.services.list(call.param('ws'), call.param('p'));
      call.res.json(services.map(serviceJson));
    },
  },
  {
    method: 'POST',
    path: `${PROJECTS}/{p}/services`,
    async handle(call) {
      const body = call.body(createSlugged);
      const service = await call.management.services.create(
        call.param('ws'),
        call.param('p'),
        body,
      );
      call.res.status(201).json(serviceJson(service));
    },
  },
];
