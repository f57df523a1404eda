import type { ManagementRoute } from './route.ts';
import { createSlugged, patchWorkspace } from './schemas.ts';
import { workspaceJson } from './views.ts';

export const workspaceRoutes: ManagementRoute[] = [
  {
    method: 'GET',
    path: '/workspaces',
    async handle({ management, res }) {
      res.json((await management.workspaces.list()).map(workspaceJson));
    },
  },
  {
    method: 'POST',
    path: '/workspaces',
    async handle(call) {
      const body = call.body(createSlugged);
      call.res.status(201).json(workspaceJson(await call.management.workspaces.create(body)));
    },
  },
  {
    method: 'GET',
    path: '/workspaces/{ws}',
    async handle(call) {
      call.res.json(workspaceJson(await call.management.workspaces.get(call.param('ws'))));
    },
  },
  {
    method: 'PATCH',
    path: '/workspaces/{ws}',
    async handle(call) {
      const body = call.body(patchWorkspace);
      const ws = await call.management.workspaces.update(call.param('ws'), {
        billingStatus: body.billing_status,
      });
      call.res.json(workspaceJson(ws));
    },
  },
];
