/**
 * `@svc/react`: React bindings of `@svc/client`'s browser entry (public keys only). Wrap the app
 * in {@link ServiceProvider}; read with {@link useFlag}, {@link useConfig} and the other hooks.
 * React 18 and 19.
 */
export {
  ServiceProvider,
  useServiceClient,
  type ServiceProviderProps,
} from './service-provider.ts';
export { useAllConfigs, useAllFlags, useConfig, useFlag, useServiceStatus } from './cache-hooks.ts';
export { useEvaluateAB, type EvaluateABState } from './use-evaluate-ab.ts';
export type { JsonValue, ServiceStatus } from '@svc/client/browser';
