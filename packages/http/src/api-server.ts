/**
 * The api's HTTP listener: a plain `node:http` server (Express's per-request pipeline costs
 * about 4x on a sync answer) that finds the route in the /v1 table, authenticates the caller
 * once, before any handler runs and before any body is read, and hands the handler the caller.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { NotFoundError } from '@svc/domain';
import { corsHeaders, preflightHeaders } from './cors.ts';
import { methodNotAllowed, unavailable } from './http-errors.ts';
import { bodyLeftUnread } from './json-body.ts';
import { writeJson } from './json-response.ts';
import type { Metrics } from './metrics.ts';
import { problem, problemOf, writeProblem } from './problem.ts';
import { RouteTable, type Answer, type KeyReader } from './route-table.ts';
import { serverTimeouts } from './server-timeouts.ts';
import { tenantResolver, type Tenant } from './tenant.ts';
import { v1Routes, type V1Deps } from './v1-routes.ts';

export interface ApiServerOptions extends V1Deps {
  baseDomain: string;
  logger: Logger;
  metrics: Metrics;
  /** True once storage answers and views are loaded (`/readyz`); until then /v1 answers 503. */
  ready: () => boolean;
  /** A client that has not sent its request's headers within this is answered 408 (default 15 s). */
  headersTimeoutMs?: number;
  /** ... nor its whole request, body included (default 30 s). */
  requestTimeoutMs?: number;
}

/** The key of the contract's header. */
export const serviceApiKey: KeyReader = (req) => {
  const key = req.headers['x-service-api-key'];
  return typeof key === 'string' ? key : undefined;
};

/** The metrics label of requests that matched no route. */
const UNMATCHED = 'unmatched';

export function createApiServer(options: ApiServerOptions): Server {
  const { model, metrics, logger } = options;
  const resolveTenant = tenantResolver(options.baseDomain);
  const table = new RouteTable(v1Routes(options));

  const topLevel: Record<string, (res: ServerResponse) => void> = {
    '/healthz': (res) => void writeJson(res, 200, { status: 'ok' }),
    // Status only: a public port says nothing of other tenants' activity (views, changes).
    '/readyz': (res) =>
      void (options.ready()
        ? writeJson(res, 200, { status: 'ready' })
        : writeJson(res, 503, { status: 'starting' })),
  };

  /** Answers a refusal (or a 500, logged) and counts it. */
  function fail(error: unknown, req: IncomingMessage, res: ServerResponse, route: string): void {
    const known = problemOf(error);
    if (!known) logger.error({ err: error, route }, 'request failed');
    const p = known?.problem ?? problem('internal', 'internal error');
    metrics.countRequest(route, p.status);
    if (res.headersSent) return void res.destroy();
    if (bodyLeftUnread(req)) {
      // Refused before its body was read (401, 403, 413, …): answer, then drop the connection
      // rather than read the rest of what was refused.
      res.shouldKeepAlive = false;
      res.once('finish', () => req.socket.destroy());
    }
    writeProblem(res, p, { ...corsHeaders, ...known?.headers });
  }

  function count(answer: Answer, req: IncomingMessage, res: ServerResponse, route: string): void {
    if (typeof answer === 'number') metrics.countRequest(route, answer);
    else {
      answer.then(
        (status) => metrics.countRequest(route, status),
        (error: unknown) => fail(error, req, res, route),
      );
    }
  }

  function route(req: IncomingMessage, res: ServerResponse, tenant: Tenant): void {
    let label = UNMATCHED;
    try {
      const method = req.method ?? 'GET';
      const match = table.match(method, tenant.path);
      if (!match) throw new NotFoundError(`no route ${method} ${tenant.path}`);
      if ('allow' in match) throw methodNotAllowed(method, match.allow);
      const { route, params } = match;
      label = route.path;
      if ('open' in route)
        return count(route.handle(req, res, { tenant, params }), req, res, label);
      const principal = model.authenticate(tenant.slug, (route.key ?? serviceApiKey)(req));
      count(route.handle(req, res, { tenant, params, principal }), req, res, label);
    } catch (error) {
      fail(error, req, res, label);
    }
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    // Shutting down: answer, then close the connection, so keep-alive clients move elsewhere.
    if (!server.listening) res.shouldKeepAlive = false;
    const url = req.url ?? '/';
    const top = topLevel[url.split('?', 1)[0]!];
    if (top && (req.method === 'GET' || req.method === 'HEAD')) return top(res);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, preflightHeaders);
      return void res.end();
    }
    // Before the views are loaded every workspace would look unknown (404) and every key
    // revoked (401), and clients stop for good on those: "not yet" is a 503.
    if (!options.ready()) {
      return fail(unavailable('the api is starting'), req, res, UNMATCHED);
    }
    const tenant = resolveTenant(req.headers.host, url);
    // An unknown workspace is 404 before the key is looked at, for every route.
    if (!tenant || !model.workspaceBySlug(tenant.slug)) {
      return fail(new NotFoundError('no such workspace'), req, res, UNMATCHED);
    }
    route(req, res, tenant);
  }

  const server = createServer(
    serverTimeouts(options.headersTimeoutMs, options.requestTimeoutMs),
    onRequest,
  );
  return server;
}
