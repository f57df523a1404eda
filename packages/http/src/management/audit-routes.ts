import type { ManagementCall, ManagementRoute } from './route.ts';
import { auditJson } from './views.ts';

/** `?limit=` 1..1000, 100 by default. */
const limitOf = (call: ManagementCall) =>
  Math.min(Math.max(Number(call.query('limit')) || 100, 1), 1000);

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
