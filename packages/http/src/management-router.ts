/**
 * The management API of the contract (`/api/...`), behind a bearer token. Thin: parse and
 * validate, call the domain's Management, shape the answer.
 */
import { Router, type Request } from 'express';
import {
  UnauthorizedError,
  type ItemKindPlural,
  type Management,
  type ScopeRef,
} from '@svc/domain';
import { pathParam, route, sendSecretWritten, versionParam } from './express-support.ts';
import {
  createKey,
  createSlugged,
  patchProject,
  patchWorkspace,
  putConfig,
  putFlag,
  putSecret,
} from './management-schemas.ts';
import {
  auditJson,
  configJson,
  flagJson,
  keyJson,
  projectJson,
  secretListingJson,
  serviceJson,
  workspaceJson,
} from './management-views.ts';
import { parseInput } from './validation.ts';

export interface ManagementRouterOptions {
  management: Management;
  /** Constant-time check of a presented bearer token. */
  checkToken: (token: string) => boolean;
}

const KINDS: ItemKindPlural[] = ['configs', 'flags', 'secrets'];

export function managementRouter({ management, checkToken }: ManagementRouterOptions): Router {
  const api = Router();

  api.use((req, _res, next) => {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    next(
      token && checkToken(token)
        ? undefined
        : new UnauthorizedError('missing or wrong bearer token'),
    );
  });

  api.get(
    '/workspaces',
    route(async (_req, res) => {
      res.json((await management.listWorkspaces()).map(workspaceJson));
    }),
  );
  api.post(
    '/workspaces',
    route(async (req, res) => {
      const body = parseInput(createSlugged, req.body);
      res.status(201).json(workspaceJson(await management.createWorkspace(body)));
    }),
  );
  api.get(
    '/workspaces/:ws',
    route(async (req, res) => {
      res.json(workspaceJson(await management.getWorkspace(pathParam(req, 'ws'))));
    }),
  );
  api.patch(
    '/workspaces/:ws',
    route(async (req, res) => {
      const body = parseInput(patchWorkspace, req.body);
      res.json(
        workspaceJson(
          await management.updateWorkspace(pathParam(req, 'ws'), {
            billingStatus: body.billing_status,
          }),
        ),
      );
    }),
  );
  api.get(
    '/workspaces/:ws/audit',
    route(async (req, res) => {
      const limit = Math.min(Math.max(Number(req.query.limit ?? 100) || 100, 1), 1000);
      res.json((await management.listAudit(pathParam(req, 'ws'), limit)).map(auditJson));
    }),
  );

  api.get(
    '/workspaces/:ws/projects',
    route(async (req, res) => {
      res.json((await management.listProjects(pathParam(req, 'ws'))).map(projectJson));
    }),
  );
  api.post(
    '/workspaces/:ws/projects',
    route(async (req, res) => {
      const body = parseInput(createSlugged, req.body);
      res.status(201).json(projectJson(await management.createProject(pathParam(req, 'ws'), body)));
    }),
  );
  api.patch(
    '/workspaces/:ws/projects/:p',
    route(async (req, res) => {
      const body = parseInput(patchProject, req.body);
      const project = await management.updateProject(pathParam(req, 'ws'), pathParam(req, 'p'), {
        abTesting: body.ab_testing,
      });
      res.json(projectJson(project));
    }),
  );

  api.get(
    '/workspaces/:ws/projects/:p/services',
    route(async (req, res) => {
      res.json(
        (await management.listServices(pathParam(req, 'ws'), pathParam(req, 'p'))).map(serviceJson),
      );
    }),
  );
  api.post(
    '/workspaces/:ws/projects/:p/services',
    route(async (req, res) => {
      const body = parseInput(createSlugged, req.body);
      res
        .status(201)
        .json(
          serviceJson(
            await management.createService(pathParam(req, 'ws'), pathParam(req, 'p'), body),
          ),
        );
    }),
  );

  api.get(
    '/workspaces/:ws/projects/:p/keys',
    route(async (req, res) => {
      res.json(
        (await management.listApiKeys(pathParam(req, 'ws'), pathParam(req, 'p'))).map(keyJson),
      );
    }),
  );
  api.post(
    '/workspaces/:ws/projects/:p/keys',
    route(async (req, res) => {
      const body = parseInput(createKey, req.body);
      res
        .status(201)
        .json(await management.createApiKey(pathParam(req, 'ws'), pathParam(req, 'p'), body));
    }),
  );
  api.delete(
    '/workspaces/:ws/projects/:p/keys/:id',
    route(async (req, res) => {
      await management.revokeApiKey(
        pathParam(req, 'ws'),
        pathParam(req, 'p'),
        pathParam(req, 'id'),
      );
      res.status(204).end();
    }),
  );

  for (const prefix of ['/workspaces/:ws/projects/:p', '/workspaces/:ws/projects/:p/services/:s']) {
    api.put(
      `${prefix}/configs/:key`,
      route(async (req, res) => {
        const body = parseInput(putConfig, req.body);
        const entry = await management.putConfig(scopeOf(req), pathParam(req, 'key'), {
          value: body.value,
          isPublic: body.is_public,
        });
        res.json(configJson(entry));
      }),
    );
    api.put(
      `${prefix}/flags/:key`,
      route(async (req, res) => {
        const body = parseInput(putFlag, req.body);
        const flag = await management.putFlag(scopeOf(req), pathParam(req, 'key'), {
          isActive: body.is_active,
          rules: body.rules,
          rolloutPercentage: body.rollout_percentage,
          salt: body.salt,
        });
        res.json(flagJson(flag));
      }),
    );
    api.put(
      `${prefix}/secrets/:key`,
      route(async (req, res) => {
        const body = parseInput(putSecret, req.body);
        const result = await management.putSecret(scopeOf(req), pathParam(req, 'key'), {
          value: body.value,
          type: body.type,
          fileName: body.file_name,
          expectedVersion: body.expected_version,
        });
        sendSecretWritten(res, result);
      }),
    );
    api.delete(
      `${prefix}/secrets/:key/versions/:version`,
      route(async (req, res) => {
        await management.deleteSecretVersion(
          scopeOf(req),
          pathParam(req, 'key'),
          versionParam(req),
        );
        res.status(204).end();
      }),
    );
    for (const kind of KINDS) {
      api.delete(
        `${prefix}/${kind}/:key`,
        route(async (req, res) => {
          await management.deleteItem(scopeOf(req), kind, pathParam(req, 'key'));
          res.status(204).end();
        }),
      );
    }
    api.get(
      `${prefix}/configs`,
      route(async (req, res) => {
        res.json((await management.listConfigs(scopeOf(req))).map(configJson));
      }),
    );
    api.get(
      `${prefix}/flags`,
      route(async (req, res) => {
        res.json((await management.listFlags(scopeOf(req))).map(flagJson));
      }),
    );
    api.get(
      `${prefix}/secrets`,
      route(async (req, res) => {
        const reveal = req.query.reveal === 'true';
        res.json((await management.listSecrets(scopeOf(req), reveal)).map(secretListingJson));
      }),
    );
  }
  return api;
}

function scopeOf(req: Request): ScopeRef {
  const service = req.params.s;
  return {
    workspace: pathParam(req, 'ws'),
    project: pathParam(req, 'p'),
    ...(typeof service === 'string' ? { service } : {}),
  };
}
