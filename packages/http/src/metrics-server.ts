/**
 * Prometheus metrics on a listener of their own (`METRICS_PORT` on `METRICS_HOST`, loopback by
 * default): process and traffic figures are operators' business, never a public port's.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AggregatorRegistry } from 'prom-client';
import type { Metrics } from './metrics.ts';
import { problem, writeProblem } from './problem.ts';

/** What the metrics listener serves: one process's registry, or a cluster's sum. */
export interface MetricsSource {
  registry: { metrics(): Promise<string>; readonly contentType: string };
}

/**
 * In a cluster worker (`API_WORKERS` > 1): this process's metrics go to the primary when it asks
 * (prom-client's cluster messages); the worker opens no metrics listener of its own.
 */
export function shareMetricsWithPrimary(metrics: Metrics): void {
  AggregatorRegistry.setRegistries([metrics.registry]);
  // prom-client answers the primary's requests once an aggregator exists in the worker.
  new AggregatorRegistry();
}

/** In the cluster's primary: every worker's metrics, counters and gauges summed across them. */
export function clusterMetricsSource(): MetricsSource {
  const aggregator = new AggregatorRegistry();
  return {
    registry: { metrics: () => aggregator.clusterMetrics(), contentType: aggregator.contentType },
  };
}

export interface MetricsListener {
  server: Server;
  port: number;
}

/**
 * Serves `GET /metrics` on `port` when one is configured (failing to bind it is fatal), else on
 * the app's `defaultPort`, or, when another process holds that (a second instance on one
 * machine, a test run), on a free port, which `warn` is told of.
 */
export async function serveMetrics(
  metrics: MetricsSource,
  options: { host: string; port: number | undefined; defaultPort: number },
  warn: (message: string) => void,
): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = req.url?.split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
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
  const bind = async (port: number) => {
    server.listen(port, options.host);
    await once(server, 'listening');
    return { server, port: (server.address() as AddressInfo).port };
  };
  if (options.port !== undefined) return bind(options.port);
  try {
    return await bind(options.defaultPort);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const listener = await bind(0);
    warn(
      `metrics port ${options.defaultPort} is taken: metrics are on ${listener.port} (set METRICS_PORT)`,
    );
    return listener;
  }
}
