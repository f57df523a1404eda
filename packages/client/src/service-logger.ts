/**
 * The client's logging port, as the spec names it, shared by the Node and browser entries (each
 * has its own default adapter). Messages never carry secret values or API keys.
 */

/** Where the client writes what it does. Pass your own in `ServiceConfig.logger`. */
export interface ServiceLogger {
  /** Routine detail: each sync, each stream event batch. */
  debug(message: string): void;
  /** State changes worth seeing: stream connected or lost, quarantine entered. */
  info(message: string): void;
  /** A failure the client handled (and will retry, or stopped on); `cause` is the error. */
  error(message: string, cause?: unknown): void;
}

/** A logger that drops everything. */
export const silentLogger: ServiceLogger = {
  debug: () => {},
  info: () => {},
  error: () => {},
};

/**
 * A logger writing `info` and `error` to the console with a `[name]` prefix, and `debug` through
 * `debug` (the browser entry's default passes `console.debug`, shown at the "verbose" level).
 */
export function consoleLogger(name: string, debug: (message: string) => void): ServiceLogger {
  return {
    debug,
    info: (message) => console.info(`[${name}] ${message}`),
    // The cause only when there is one: `console.error(message)` alone otherwise.
    error: (message, ...cause: unknown[]) => console.error(`[${name}] ${message}`, ...cause),
  };
}
