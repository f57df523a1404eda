import type { ManagementCall, ManagementRoute } from './route.ts';
import { auditJson } from './views.ts';

/** `?limit=` 1..1000, 100 by default. */
const limitOf = (call: ManagementCall) => call.queryInteger('limit', 1, 1000, 100);

export const auditRoutes: ManagementRoute[] = [
  {
    method: 'GET',
    path: '/workspaces/{ws}/audit',
    async handle(call) {
      const entries = await call.management.audit.list(call.param('ws'), limitOf(call));
      call.res.json(entries.map(auditJson));
    },
  },
  {
    method: 'GET',
    path: '/audit',
    async handle(call) {
      const entries = await call.management.audit.listConsole(limitOf(call));
      call.res.json(entries.map(auditJson));
    },
  },
];
