import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { problem, problemOf, writeProblem } from './problem.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** JSON bodies up to 1 MiB (413 above), also for `application/*+json`. */
export const jsonBody: RequestHandler = express.json({
  limit: BODY_LIMIT_BYTES,
  type: ['application/json', 'application/*+json'],
  strict: false,
});

/** The last middleware: every error becomes problem+json; unknown ones are logged 500s. */
export function problemErrors(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const known = problemOf(error);
    if (known) return writeProblem(res, known.problem, known.headers);
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') {
      return writeProblem(
        res,
        problem('payload_too_large', `request body is over ${BODY_LIMIT_BYTES} bytes`),
      );
    }
    if (type === 'entity.parse.failed') {
      return writeProblem(
        res,
        problem('invalid_request', 'request body is not valid JSON', 'body'),
      );
    }
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
      return writeProblem(res, problem('invalid_request', 'unsupported body encoding', 'body'));
    }
    // Any other refusal of the request by the framework or a library (bad percent-encoding in
    // a path, a body that fails to inflate, an aborted upload) is the client's, never a 500.
    const status =
      (error as { status?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const field = error instanceof URIError ? 'path' : 'body';
      const detail =
        error instanceof Error && (error as { expose?: boolean }).expose !== false
          ? error.message
          : 'malformed request';
      return writeProblem(res, problem('invalid_request', detail, field));
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'request failed');
    if (res.headersSent) return res.destroy();
    writeProblem(res, problem('internal', 'internal error'));
  };
}

/** 404 for any route nobody handled. */
export const notFoundRoute: RequestHandler = (req, res) =>
  writeProblem(res, problem('not_found', `no route ${req.method} ${req.path}`));

/** Wraps an async handler so its rejection reaches the error middleware. */
export function route(
  fn: (req: express.Request, res: express.Response) => Promise<void> | void,
): RequestHandler {
  return (req, res, next) => {
    Promise.resolve()
      .then(() => fn(req, res))
      .catch(next);
  };
}
