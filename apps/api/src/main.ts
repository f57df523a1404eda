import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { createLogger, loadSettings, onShutdown, SettingsError } from '@svc/runtime';
import { startApi } from './api-app.ts';
import { runClusterPrimary } from './cluster-primary.ts';
import { runClusterWorker } from './cluster-worker.ts';

try {
  const settings = loadSettings();
  const logger = createLogger({ name: 'api', level: settings.LOG_LEVEL });
  const workers = settings.API_WORKERS === 'auto' ? availableParallelism() : settings.API_WORKERS;
  const fail = (error: unknown) => {
    logger.fatal({ err: error }, 'api failed to start');
    process.exit(1);
  };
  if (cluster.isWorker) {
    await runClusterWorker(settings, logger).catch(fail);
  } else if (workers > 1) {
    await runClusterPrimary(settings, logger, workers).catch(fail);
  } else {
    const app = await startApi(settings, logger).catch(fail);
    onShutdown(logger, settings.SHUTDOWN_GRACE_MS, () => app.close());
  }
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  console.error(`api: ${error.message}`);
  process.exit(1);
}
