/**
 * The errors both entries export: every error a browser's client can raise. The Node entry
 * (index.ts) adds those of secrets and writes.
 */
export {
  ServiceAbAddonNotAvailableError,
  ServiceBillingError,
  ServiceError,
  ServiceInitError,
  ServiceNotFoundError,
  ServiceQuarantinedError,
  ServiceUnauthorizedError,
  type ServiceErrorDetails,
} from './errors.ts';
