import type { ManagementRoute } from './route.ts';
import {
  createIdentityBody,
  identityJson,
  patchIdentityBody,
  toCreateInput,
  toPatch,
} from './identity-wire.ts';

const IDENTITIES = '/workspaces/{ws}/projects/{p}/identities';

/** Workload identities of a project: created, listed (with use and live keys), changed, deleted. */
export const identityRoutes: ManagementRoute[] = [
  {
    method: 'GET',
    path: IDENTITIES,
    async handle(call) {
      const identities = await call.management.identities.list(call.param('ws'), call.param('p'));
      call.res.json(identities.map(identityJson));
    },
  },
  {
    method: 'POST',
    path: IDENTITIES,
    async handle(call) {
      const input = toCreateInput(call.body(createIdentityBody));
      const created = await call.management.identities.create(
        call.param('ws'),
        call.param('p'),
        input,
      );
      call.res.status(201).json(identityJson(created));
    },
  },
  {
    method: 'PATCH',
    path: `${IDENTITIES}/{id}`,
    async handle(call) {
      const patch = toPatch(call.body(patchIdentityBody));
      const updated = await call.management.identities.patch(
        call.param('ws'),
        call.param('p'),
        call.param('id'),
        patch,
      );
      call.res.json(identityJson(updated));
    },
  },
  {
    method: 'DELETE',
    path: `${IDENTITIES}/{id}`,
    async handle(call) {
      await call.management.identities.delete(call.param('ws'), call.param('p'), call.param('id'));
      call.res.status(204).end();
    },
  },
];
