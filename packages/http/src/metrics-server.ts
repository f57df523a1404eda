/**
 * Prometheus metrics on a listener of their own (`METRICS_PORT` on `METRICS_HOST`, loopback by
 * default): process and traffic figures are operators' business, never a public port's.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.ts';
import { problem, writeProblem } from './problem.ts';

export function createMetricsServer(metrics: Metrics): Server {
  return createServer((req, res) => {
    if (
      req.url?.split('?', 1)[0] !== '/metrics' ||
      (req.method !== 'GET' && req.method !== 'HEAD')
    ) {
      return writeProblem(res, problem('not_found', 'only GET /metrics is served here'));
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': metrics.registry.contentType });
        res.end(text);
      },
      () => writeProblem(res, problem('internal', 'metrics unavailable')),
    );
  });
}

/**
 * Starts the metrics listener on `port` (explicitly configured: its failure to bind is fatal)
 * or, when only the app's default port was asked for and another process holds it (a second
 * instance on one machine, a test run), on a free port, said in `onFallback`.
 */
export async function listenForMetrics(
  server: Server,
  options: { host: string; port: number | undefined; defaultPort: number },
  onFallback: (port: number) => void,
): Promise<number> {
  const bind = async (port: number) => {
    server.listen(port, options.host);
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };
  if (options.port !== undefined) return bind(options.port);
  try {
    return await bind(options.defaultPort);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const port = await bind(0);
    onFallback(port);
    return port;
  }
}
