import type { Logger } from 'pino';

/**
 * Runs `stop` once on SIGTERM or SIGINT (or the `signals` given), then exits; a second signal or
 * the grace period running out exits at once.
 */
export function onShutdown(
  logger: Logger,
  graceMs: number,
  stop: () => Promise<void>,
  signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'],
): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ graceMs }, 'shutdown took too long: exiting');
      process.exit(1);
    }, graceMs);
    timer.unref();
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, handle);
}
