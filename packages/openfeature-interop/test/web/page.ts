/**
 * The page of the browser test, bundled by esbuild: `@openfeature/web-sdk` with
 * `@openfeature/ofrep-web-provider` as an app would use them, driven from the test through
 * `globalThis.ofrep`. Every `PROVIDER_CONFIGURATION_CHANGED` is logged with the time it came.
 */
import { OpenFeature, ProviderEvents, type EvaluationContext } from '@openfeature/web-sdk';
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';

interface Change {
  domain: string;
  flags: string[];
  at: number;
}

const changes: Change[] = [];

function details(domain: string, type: string, key: string, fallback: unknown) {
  const client = OpenFeature.getClient(domain);
  const d =
    type === 'boolean'
      ? client.getBooleanDetails(key, fallback as boolean)
      : type === 'string'
        ? client.getStringDetails(key, fallback as string)
        : type === 'object'
          ? client.getObjectDetails(key, fallback as object as never)
          : client.getNumberDetails(key, fallback as number);
  return { value: d.value, reason: d.reason, variant: d.variant, errorCode: d.errorCode };
}

(globalThis as unknown as { ofrep: unknown }).ofrep = {
  /** A provider for `domain`; resolves with the initialization error, if any. */
  async connect(
    domain: string,
    baseUrl: string,
    header: [string, string],
    context: EvaluationContext,
  ) {
    const provider = new OFREPWebProvider({ baseUrl, headers: [header] });
    OpenFeature.getClient(domain).addHandler(ProviderEvents.ConfigurationChanged, (event) => {
      changes.push({ domain, flags: event?.flagsChanged ?? [], at: Date.now() });
    });
    try {
      await OpenFeature.setProviderAndWait(domain, provider, context);
      return null;
    } catch (error) {
      return String(error);
    }
  },
  setContext: (domain: string, context: EvaluationContext) =>
    OpenFeature.setContext(domain, context),
  details,
  status: (domain: string) => OpenFeature.getClient(domain).providerStatus,
  changes: () => changes,
};
