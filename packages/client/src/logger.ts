/**
 * The client's logging port, as the spec names it, and its default adapter. Messages never carry
 * secret values or API keys.
 */
import { debuglog } from 'node:util';

/** Where the client writes what it does. Pass your own in `ServiceConfig.logger`. */
export interface ServiceLogger {
  /** Routine detail: each sync, each stream event batch. */
  debug(message: string): void;
  /** State changes worth seeing: stream connected or lost, quarantine entered. */
  info(message: string): void;
  /** A failure the client handled (and will retry, or stopped on); `cause` is the error. */
  error(message: string, cause?: unknown): void;
}

/**
 * The default adapter: a logger named `ServiceClient`. `info` and `error` go to the console
 * with a `[ServiceClient]` prefix; `debug` goes through `util.debuglog`, so it shows when the
 * process runs with `NODE_DEBUG=ServiceClient`.
 */
export function defaultLogger(name = 'ServiceClient'): ServiceLogger {
  const debug = debuglog(name);
  return {
    debug: (message) => debug('%s', message),
    info: (message) => console.info(`[${name}] ${message}`),
    error: (message, cause) =>
      cause === undefined
        ? console.error(`[${name}] ${message}`)
        : console.error(`[${name}] ${message}`, cause),
  };
}

/** A logger that drops everything. */
export const silentLogger: ServiceLogger = {
  debug: () => {},
  info: () => {},
  error: () => {},
};
