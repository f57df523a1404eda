/**
 * The api's HTTP listener. It owns the `node:http` server: the hot client endpoints go to lean
 * handlers (Express's per-request pipeline costs about 4x on a sync response), everything else
 * to the Express app. `routes` below is the one table that says which is which.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { ReadModel, SyncGuard } from '@svc/domain';
import { corsHeaders, preflightHeaders } from './cors.ts';
import { problemErrors, notFoundRoute } from './express-support.ts';
import type { Metrics } from './metrics.ts';
import { problem, problemOf, writeProblem } from './problem.ts';
import { syncHandler } from './sync-handler.ts';
import { evaluateAbHandler } from './evaluate-ab-handler.ts';
import { tenantResolver, type Tenant } from './tenant.ts';

/** A lean handler answers from memory and returns the status it sent. */
export type LeanHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  tenant: Tenant,
) => number | void | Promise<number | void>;

export interface ApiServerOptions {
  model: ReadModel;
  baseDomain: string;
  logger: Logger;
  metrics: Metrics;
  /** True once storage answers and views are loaded (`/readyz`). */
  ready: () => boolean;
  syncGuard?: SyncGuard;
  /** Adds the Express routes of the workspace API (paths below the base URL, e.g. `/v1/secrets/:key`). */
  mountRoutes?: (app: Express) => void;
  /** More lean routes, e.g. `GET /v1/stream`. */
  leanRoutes?: Record<string, LeanHandler>;
}

const tenants = new WeakMap<IncomingMessage, Tenant>();

/** The workspace a request addresses (set before Express sees the request). */
export function tenantOf(req: IncomingMessage): Tenant {
  const tenant = tenants.get(req);
  if (!tenant) throw new Error('request has no tenant');
  return tenant;
}

export function createApiServer(options: ApiServerOptions): Server {
  const { model, metrics, logger } = options;
  const resolveTenant = tenantResolver(options.baseDomain);

  /** `METHOD path` → lean handler; anything absent goes to Express. */
  const routes: Record<string, LeanHandler> = {
    'GET /v1/sync': syncHandler(model, options.syncGuard),
    'POST /v1/flags/evaluate-ab': evaluateAbHandler(model),
    ...options.leanRoutes,
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((_req, res, next) => {
    res.set(corsHeaders);
    next();
  });
  options.mountRoutes?.(app);
  app.use(notFoundRoute);
  app.use(problemErrors(logger));

  const topLevel: Record<string, (res: ServerResponse) => void> = {
    '/healthz': (res) => writeJson(res, 200, { status: 'ok' }),
    '/readyz': (res) =>
      options.ready()
        ? writeJson(res, 200, { status: 'ready', views: model.viewCount, seq: model.seq })
        : writeJson(res, 503, { status: 'starting' }),
    '/metrics': (res) => {
      metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'Content-Type': metrics.registry.contentType });
          res.end(text);
        },
        () => writeProblem(res, problem('internal', 'metrics unavailable')),
      );
    },
  };

  const server = createServer((req, res) => {
    // Shutting down: answer, then close the connection, so keep-alive clients move elsewhere.
    if (!server.listening) res.shouldKeepAlive = false;
    const url = req.url ?? '/';
    const method = req.method ?? 'GET';
    const top = topLevel[url.split('?', 1)[0]!];
    if (top && (method === 'GET' || method === 'HEAD')) return top(res);
    if (method === 'OPTIONS') {
      res.writeHead(204, preflightHeaders);
      return res.end();
    }
    const tenant = resolveTenant(req.headers.host, url);
    // An unknown workspace is 404 before the key is looked at, for every route.
    if (!tenant || !model.workspaceBySlug(tenant.slug)) {
      return writeProblem(res, problem('not_found', 'no such workspace'), corsHeaders);
    }
    const lean = routes[`${method} ${tenant.path}`];
    if (lean) {
      try {
        const status = lean(req, res, tenant);
        if (typeof status === 'number') metrics.countRequest(tenant.path, status);
        else if (status instanceof Promise) {
          status.then(
            (s) => {
              if (typeof s === 'number') metrics.countRequest(tenant.path, s);
            },
            (error: unknown) => failLean(error, res, tenant, options),
          );
        }
      } catch (error) {
        failLean(error, res, tenant, options);
      }
      return;
    }
    tenants.set(req, tenant);
    const query = url.indexOf('?');
    req.url = tenant.path + (query === -1 ? '' : url.slice(query));
    app(req, res);
  });
  return server;
}

/** A lean handler threw: its problem+json (or 500, logged), counted like any answer. */
function failLean(
  error: unknown,
  res: ServerResponse,
  tenant: Tenant,
  { logger, metrics }: ApiServerOptions,
): void {
  const known = problemOf(error);
  if (!known) logger.error({ err: error, path: tenant.path }, 'request failed');
  const p = known?.problem ?? problem('internal', 'internal error');
  metrics.countRequest(tenant.path, p.status);
  if (!res.headersSent) writeProblem(res, p, { ...corsHeaders, ...known?.headers });
  else res.destroy();
}

function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
