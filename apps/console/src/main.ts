import { createLogger, loadSettings, onShutdown, SettingsError } from '@svc/runtime';
import { startConsole } from './console-app.ts';

try {
  const settings = loadSettings();
  const logger = createLogger({ name: 'console', level: settings.LOG_LEVEL });
  const app = await startConsole(settings, logger, {
    seedDemo: settings.SEED_DEMO === 'true',
  }).catch((error: unknown) => {
    logger.fatal({ err: error }, 'console failed to start');
    process.exit(1);
  });
  onShutdown(logger, settings.SHUTDOWN_GRACE_MS, () => app.close());
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  console.error(`console: ${error.message}`);
  process.exit(1);
}
