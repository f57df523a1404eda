import { createServer, type Server } from 'node:http';
import express, { type RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { notFoundRoute, problemErrors } from './express-support.ts';
import { managementRouter, type ManagementRouterOptions } from './management/router.ts';
import type { Metrics } from './metrics.ts';
import { serverTimeouts } from './server-timeouts.ts';

export interface ConsoleServerOptions extends ManagementRouterOptions {
  logger: Logger;
  metrics: Metrics;
  ready: () => boolean;
  /** Serves the console web page and its assets. */
  page?: RequestHandler;
  /** Limits on slow clients (see server-timeouts.ts). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
}

/**
 * The console: management API under `/api`, health endpoints and the web page. (Its metrics
 * are served apart, on METRICS_PORT: see metrics-server.ts.)
 */
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
  app.use(
    pinoHttp({
      logger: options.logger,
      // Method, path and status only: never headers (tokens), bodies (secret values) or query
      // strings (anything a caller put there).
      serializers: {
        req: (req: { method: string; url: string }) => ({
          method: req.method,
          url: req.url.split('?', 1)[0],
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    }),
  );
  app.use((req, res, next) => {
    res.on('finish', () => options.metrics.countRequest('management', res.statusCode));
    next();
  });
  app.use('/api', managementRouter(options));
  if (options.page) app.use(options.page);
  app.use(notFoundRoute);
  app.use(problemErrors(options.logger));
  return createServer(serverTimeouts(options.headersTimeoutMs, options.requestTimeoutMs), app);
}
