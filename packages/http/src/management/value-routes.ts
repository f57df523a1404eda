import type { Revisioned } from '@svc/domain';
import { parseVersionNumber } from '../validation.ts';
import type { ManagementCall, ManagementRoute } from './route.ts';
import { putConfig, putFlag, putSecret } from './schemas.ts';
import { configJson, flagJson, secretListingJson } from './views.ts';

/** Where values live: project level, or one service's level. */
const SCOPES = ['/workspaces/{ws}/projects/{p}', '/workspaces/{ws}/projects/{p}/services/{s}'];

/** A write with no body to answer: 204, the change's revision in `X-Revision`. */
function written(call: ManagementCall, { revision }: Revisioned): void {
  call.res.status(204).set('X-Revision', String(revision)).end();
}

/**
 * Configs, flags and secrets of a scope. Every write answers with the project revision its change
 * produced (in the body, or in `X-Revision`): a client whose sync shows it has the change.
 */
export const valueRoutes: ManagementRoute[] = SCOPES.flatMap((scope): ManagementRoute[] => [
  {
    method: 'GET',
    path: `${scope}/configs`,
    async handle(call) {
      call.res.json((await call.management.configs.list(call.scope())).map(configJson));
    },
  },
  {
    method: 'PUT',
    path: `${scope}/configs/{key}`,
    async handle(call) {
      const body = call.body(putConfig);
      const config = await call.management.configs.put(call.scope(), call.param('key'), {
        value: body.value,
        isPublic: body.is_public,
      });
      call.res.json({ ...configJson(config), revision: config.revision });
    },
  },
  {
    method: 'DELETE',
    path: `${scope}/configs/{key}`,
    async handle(call) {
      written(call, await call.management.configs.delete(call.scope(), call.param('key')));
    },
  },
  {
    method: 'GET',
    path: `${scope}/flags`,
    async handle(call) {
      call.res.json((await call.management.flags.list(call.scope())).map(flagJson));
    },
  },
  {
    method: 'PUT',
    path: `${scope}/flags/{key}`,
    async handle(call) {
      const body = call.body(putFlag);
      const flag = await call.management.flags.put(call.scope(), call.param('key'), {
        isActive: body.is_active,
        rules: body.rules,
        rolloutPercentage: body.rollout_percentage,
        salt: body.salt,
      });
      call.res.json({ ...flagJson(flag), revision: flag.revision });
    },
  },
  {
    method: 'DELETE',
    path: `${scope}/flags/{key}`,
    async handle(call) {
      written(call, await call.management.flags.delete(call.scope(), call.param('key')));
    },
  },
  {
    method: 'GET',
    path: `${scope}/secrets`,
    async handle(call) {
      const reveal = call.queryBoolean('reveal');
      const secrets = await call.management.secrets.list(call.scope(), reveal);
      call.res.json(secrets.map(secretListingJson));
    },
  },
  {
    method: 'PUT',
    path: `${scope}/secrets/{key}`,
    async handle(call) {
      const body = call.body(putSecret);
      const written = await call.management.secrets.put(call.scope(), call.param('key'), {
        value: body.value,
        type: body.type,
        fileName: body.file_name,
        expectedVersion: body.expected_version,
      });
      const { key, version, type, revision } = written;
      call.res.status(written.created ? 201 : 200).json({ key, version, type, revision });
    },
  },
  {
    method: 'DELETE',
    path: `${scope}/secrets/{key}`,
    async handle(call) {
      written(call, await call.management.secrets.delete(call.scope(), call.param('key')));
    },
  },
  {
    method: 'DELETE',
    path: `${scope}/secrets/{key}/versions/{version}`,
    async handle(call) {
      const version = parseVersionNumber(call.param('version'));
      written(
        call,
        await call.management.secrets.deleteVersion(call.scope(), call.param('key'), version),
      );
    },
  },
]);
