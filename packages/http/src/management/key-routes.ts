import type { ManagementRoute } from './route.ts';
import { createKey } from './schemas.ts';
import { keyJson } from './views.ts';

const KEYS = '/workspaces/{ws}/projects/{p}/keys';

/** API keys of a project: created (shown once), listed without the key, revoked. */
export const keyRoutes: ManagementRoute[] = [
  {
    method: 'GET',
    path: KEYS,
    async handle(call) {
      const keys = await call.management.keys.list(call.param('ws'), call.param('p'));
      call.res.json(keys.map(keyJson));
    },
  },
  {
    method: 'POST',
    path: KEYS,
    async handle(call) {
      const body = call.body(createKey);
      const created = await call.management.keys.create(call.param('ws'), call.param('p'), body);
      call.res.status(201).json(created);
    },
  },
  {
    method: 'DELETE',
    path: `${KEYS}/{id}`,
    async handle(call) {
      await call.management.keys.revoke(call.param('ws'), call.param('p'), call.param('id'));
      call.res.status(204).end();
    },
  },
];
