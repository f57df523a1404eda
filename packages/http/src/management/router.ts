/**
 * The management API of the contract (`/api/...`), behind a bearer token: the route table made
 * into an Express router.
 */
import { Router } from 'express';
import { UnauthorizedError, type Management } from '@svc/domain';
import { route } from '../express-support.ts';
import { expressPath, ManagementCall } from './route.ts';
import { MANAGEMENT_ROUTES } from './routes.ts';

export interface ManagementRouterOptions {
  management: Management;
  /** Constant-time check of a presented bearer token. */
  checkToken: (token: string) => boolean;
}

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

  for (const { method, path, handle } of MANAGEMENT_ROUTES) {
    const on = method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    api[on](
      expressPath(path),
      route((req, res) => handle(new ManagementCall(management, req, res))),
    );
  }
  return api;
}
