/**
 * `@svc/client` in browsers (the `browser` condition of its exports, or `@svc/client/browser`):
 * the same cache, sync, stream and `evaluateAB` as the Node entry, with a public key only, no
 * file secrets and no Node globals. Start with {@link ServiceClient.create}, or build one and
 * {@link ServiceClient.start} it.
 */
export { ServiceClient, defaultLogger } from './browser-client.ts';
export type { ServiceConfig } from './browser-client.ts';
export type { ChangeListener, ChangeSet, ServiceStatus } from './client-status.ts';
export type { ReconnectOptions } from './common-config.ts';
export type { KeyType } from './api-key.ts';
export type { Change, ItemKind, JsonValue } from './snapshot.ts';
export { silentLogger, type ServiceLogger } from './service-logger.ts';
export * from './entry-errors.ts';
