/**
 * The management API of the contract (`/api/...`): the route table made into an Express router.
 * In order: answers are marked private and unsniffable, the bearer token is checked (before any
 * body is read), the body is parsed and checked, the route runs; a known path asked with another
 * method is a 405 naming the methods it has.
 */
import { Router, type RequestHandler } from 'express';
import type { Management } from '@svc/domain';
import { route } from '../express-support.ts';
import { problem, writeProblem } from '../problem.ts';
import { requireBearer, type BearerCheck } from './authenticate.ts';
import { managementBody } from './body.ts';
import { expressPath, ManagementCall, type Method } from './route.ts';
import { MANAGEMENT_ROUTES } from './routes.ts';

export interface ManagementRouterOptions extends BearerCheck {
  management: Management;
}

/**
 * Every answer of the API may hold a secret or a key (`?reveal=true`, a new key), and every one
 * is JSON: never stored by a cache, never sniffed as another type.
 */
const privateAnswers: RequestHandler = (_req, res, next) => {
  res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  next();
};

export function managementRouter(options: ManagementRouterOptions): Router {
  const api = Router();
  api.use(privateAnswers, requireBearer(options), ...managementBody);

  const methodsByPath = new Map<string, Method[]>();
  for (const { method, path, handle } of MANAGEMENT_ROUTES) {
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), method]);
    const on = method.toLowerCase() as Lowercase<Method>;
    api[on](
      expressPath(path),
      route((req, res) => handle(new ManagementCall(options.management, req, res))),
    );
  }
  for (const [path, methods] of methodsByPath) {
    const allow = methods.join(', ');
    api.all(expressPath(path), (req, res) => {
      const p = problem('method_not_allowed', `${req.method} is not allowed here; use ${allow}`);
      writeProblem(res, p, { Allow: allow });
    });
  }
  return api;
}
