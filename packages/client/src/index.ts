/**
 * `@svc/client`: the TypeScript/Node client of the configuration, secrets and feature-flag
 * service. Start with {@link ServiceClient.create}.
 */
export { ServiceClient } from './service-client.ts';
export type {
  ChangeListener,
  ChangeSet,
  SecretWriteResult,
  SetSecretOptions,
} from './service-client.ts';
export type { ServiceStatus } from './client-status.ts';
export type { ReconnectOptions, ServiceConfig } from './config.ts';
export type { KeyType } from './api-key.ts';
export type {
  AwsCredentials,
  IdentityMethod,
  WorkloadIdentity,
} from './identity/workload-identity.ts';
export type { Change, ItemKind, JsonValue } from './snapshot.ts';
export { defaultLogger, silentLogger, type ServiceLogger } from './logger.ts';
export * from './entry-errors.ts';
export {
  ServicePublicKeyError,
  ServiceRateLimitedError,
  ServiceSecretNotFoundError,
  type RetryAfterDetails,
} from './errors.ts';
