/** The Node entry's default logging adapter (the port itself is in service-logger.ts). */
import { debuglog } from 'node:util';
import { consoleLogger, silentLogger, type ServiceLogger } from './service-logger.ts';

export { silentLogger, type ServiceLogger };

/**
 * The default adapter: a logger named `ServiceClient`. `info` and `error` go to the console
 * with a `[ServiceClient]` prefix; `debug` goes through `util.debuglog`, so it shows when the
 * process runs with `NODE_DEBUG=ServiceClient`.
 */
export function defaultLogger(name = 'ServiceClient'): ServiceLogger {
  const debug = debuglog(name);
  return consoleLogger(name, (message) => debug('%s', message));
}
