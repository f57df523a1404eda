import { createServer, type Server } from 'node:http';
import express, { type RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { notFoundRoute, problemErrors } from './express-support.ts';
import { managementRouter, type ManagementRouterOptions } from './management/router.ts';
import type { Metrics } from './metrics.ts';

/** Request headers must arrive within this, and a whole request within the next (then 408). */
export const HEADERS_TIMEOUT_MS = 15_000;
export const REQUEST_TIMEOUT_MS = 30_000;

export interface ConsoleServerOptions extends ManagementRouterOptions {
  logger: Logger;
  metrics: Metrics;
  ready: () => boolean;
  /** Serves the console web page and its assets. */
  page?: RequestHandler;
}

/** The console: management API under `/api`, health endpoints, metrics and the web page. */
export function createConsoleServer(options: ConsoleServerOptions): Server {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    res
      .status(options.ready() ? 200 : 503)
      .json({ status: options.ready() ? 'ready' : 'starting' });
  });
  app.get('/metrics', (_req, res, next) => {
    options.metrics.registry.metrics().then((text) => {
      res.type(options.metrics.registry.contentType).send(text);
    }, next);
  });
  app.use(
    pinoHttp({
      logger: options.logger,
      // Method, path and status only: never headers (tokens) or bodies (secret values).
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    }),
  );
  app.use((req, res, next) => {
    res.on('finish', () =>
      options.metrics.requests.inc({ route: 'management', status: res.statusCode }),
    );
    next();
  });
  app.use('/api', managementRouter(options));
  if (options.page) app.use(options.page);
  app.use(notFoundRoute);
  app.use(problemErrors(options.logger));
  const server = createServer(app);
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  return server;
}
