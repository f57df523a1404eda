/** `@svc/openfeature`: an OpenFeature provider (server SDK) over the service's TypeScript client. */
export { AB_UNAVAILABLE_RETRY_MS, SvcProvider, type SvcProviderOptions } from './svc-provider.ts';
