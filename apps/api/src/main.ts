import { createLogger, loadSettings, onShutdown, SettingsError } from '@svc/runtime';
import { startApi } from './api-app.ts';

try {
  const settings = loadSettings();
  const logger = createLogger({ name: 'api', level: settings.LOG_LEVEL });
  const app = await startApi(settings, logger).catch((error: unknown) => {
    logger.fatal({ err: error }, 'api failed to start');
    process.exit(1);
  });
  onShutdown(logger, settings.SHUTDOWN_GRACE_MS, () => app.close());
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  console.error(`api: ${error.message}`);
  process.exit(1);
}
