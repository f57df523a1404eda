import type { ManagementRoute } from './route.ts';
import { auditJson } from './views.ts';

export const auditRoutes: ManagementRoute[] = [
  {
    method: 'GET',
    path: '/workspaces/{ws}/audit',
    async handle(call) {
      const limit = Math.min(Math.max(Number(call.query('limit')) || 100, 1), 1000);
      const entries = await call.management.audit.list(call.param('ws'), limit);
      call.res.json(entries.map(auditJson));
    },
  },
];
