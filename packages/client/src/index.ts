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
export type { ServiceStatus } from './cached-client.ts';
export type { ReconnectOptions, ServiceConfig } from './config.ts';
export type { KeyType } from './api-key.ts';
export type {
  AwsCredentials,
  IdentityMethod,
  WorkloadIdentity,
} from './identity/workload-identity.ts';
export type { Change, ItemKind, JsonValue } from './snapshot.ts';
export { defaultLogger, silentLogger, type ServiceLogger } from './logger.ts';
export {
  ServiceAbAddonNotAvailableError,
  ServiceBillingError,
  ServiceError,
  ServiceInitError,
  ServiceNotFoundError,
  ServicePublicKeyError,
  ServiceQuarantinedError,
  ServiceRateLimitedError,
  ServiceSecretNotFoundError,
  ServiceUnauthorizedError,
  type RetryAfterDetails,
  type ServiceErrorDetails,
} from './errors.ts';
