/**
 * One api process of a cluster (`API_WORKERS` > 1): the whole api, with its own read model
 * following the change log, its own streams and sync answers, on the port the cluster shares.
 * Its primary tells it whether every worker is ready (so `/readyz` answers for all of them) and
 * when to stop; it tells the primary once it is ready.
 */
import type { Logger, Settings } from '@svc/runtime';
import { onShutdown } from '@svc/runtime';
import { startApi } from './api-app.ts';
import { isClusterMessage, type ClusterMessage } from './cluster-messages.ts';

export async function runClusterWorker(settings: Settings, logger: Logger): Promise<void> {
  let peersReady = false;
  process.on('message', (message: unknown) => {
    if (isClusterMessage(message) && message.type === 'peers') peersReady = message.ready;
  });
  const app = await startApi(settings, logger, { cluster: { ready: () => peersReady } });
  // The primary stops the workers (SIGTERM); a terminal's Ctrl-C reaches the primary for them.
  process.on('SIGINT', () => {});
  onShutdown(logger, settings.SHUTDOWN_GRACE_MS, () => app.close(), ['SIGTERM']);
  // The primary is gone (killed): nobody will stop this worker or hand it connections.
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  const ready: ClusterMessage = { type: 'ready' };
  process.send?.(ready);
}
