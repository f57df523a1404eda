export * from './settings.ts';
export * from './logger.ts';
export * from './storage.ts';
export * from './secrets.ts';
export * from './shutdown.ts';
export * from './change-log-logging.ts';
export * from './data-dir.ts';
