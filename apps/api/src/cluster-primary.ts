/**
 * The primary of an api cluster (`API_WORKERS` > 1): forks that many api workers onto one port
 * (node:cluster hands each connection to a worker in turn), so one machine holds more streams
 * than one process's open-file cap allows and uses every core. It serves no requests itself:
 * it keeps the workers running (a worker that dies is replaced), tells them whether all of
 * them are ready (`/readyz` answers for the whole cluster), serves their summed metrics, and
 * stops them all on SIGTERM or SIGINT.
 */
import cluster, { type Worker } from 'node:cluster';
import { clusterMetricsSource, serveMetrics } from '@svc/http';
import { onShutdown, type Logger, type Settings } from '@svc/runtime';
import { API_METRICS_PORT } from './api-app.ts';
import { isClusterMessage, type ClusterMessage } from './cluster-messages.ts';

/** A replacement for a worker that died waits this long, doubling while they keep dying. */
const RESPAWN_MIN_MS = 500;
const RESPAWN_MAX_MS = 30_000;
/** A worker that lived this long resets the respawn delay. */
const STABLE_MS = 60_000;

export async function runClusterPrimary(
  settings: Settings,
  logger: Logger,
  count: number,
): Promise<void> {
  const workers = new Map<Worker, { ready: boolean; startedAt: number }>();
  let everReady = false;
  let stopping = false;
  let respawnMs = RESPAWN_MIN_MS;
  let allExited: (() => void) | undefined;

  const broadcast = () => {
    const ready =
      !stopping && workers.size > 0 && [...workers.values()].every((state) => state.ready);
    const message: ClusterMessage = { type: 'peers', ready };
    for (const worker of workers.keys()) if (worker.isConnected()) worker.send(message);
  };

  const spawn = () => {
    const worker = cluster.fork();
    workers.set(worker, { ready: false, startedAt: Date.now() });
    worker.on('message', (message: unknown) => {
      if (!isClusterMessage(message) || message.type !== 'ready') return;
      workers.get(worker)!.ready = true;
      everReady = true;
      broadcast();
    });
    broadcast();
  };

  cluster.on('exit', (worker, code, signal) => {
    const state = workers.get(worker);
    workers.delete(worker);
    broadcast();
    if (stopping) {
      if (code !== 0)
        logger.warn({ pid: worker.process.pid, code, signal }, 'worker stopped badly');
      if (workers.size === 0) allExited?.();
      return;
    }
    if (!everReady) {
      // The first workers could not start (bad settings, a wrong root key): neither will others.
      logger.fatal({ pid: worker.process.pid, code, signal }, 'api worker failed to start');
      process.exit(1);
    }
    if (state && Date.now() - state.startedAt > STABLE_MS) respawnMs = RESPAWN_MIN_MS;
    logger.error(
      { pid: worker.process.pid, code, signal, restartInMs: respawnMs },
      'api worker exited: starting another',
    );
    setTimeout(() => stopping || spawn(), respawnMs).unref();
    respawnMs = Math.min(RESPAWN_MAX_MS, respawnMs * 2);
  });

  const { server: metricsServer, port: metricsPort } = await serveMetrics(
    clusterMetricsSource(),
    { host: settings.METRICS_HOST, port: settings.METRICS_PORT, defaultPort: API_METRICS_PORT },
    (message) => logger.warn(message),
  );
  for (let i = 0; i < count; i++) spawn();
  logger.info({ workers: count, port: settings.PORT, metricsPort }, 'api cluster started');

  // Each worker has its own grace period; the primary waits a little longer for the last one.
  onShutdown(logger, settings.SHUTDOWN_GRACE_MS + 2000, async () => {
    stopping = true;
    broadcast();
    const exited = new Promise<void>((resolve) => (allExited = resolve));
    for (const worker of workers.keys()) worker.process.kill('SIGTERM');
    if (workers.size > 0) await exited;
    metricsServer.close();
  });
}
