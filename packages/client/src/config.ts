/**
 * `ServiceConfig`, what the Node entry's `ServiceClient.create()` takes: the shared settings
 * (common-config.ts) plus where file secrets go and, instead of an API key, a workload
 * identity; and its validation.
 */
import {
  resolveCommon,
  type CommonConfig,
  type ReconnectOptions,
  type ResolvedCommon,
} from './common-config.ts';
import {
  resolveIdentity,
  type ResolvedIdentity,
  type WorkloadIdentity,
} from './identity/workload-identity.ts';
import { defaultLogger } from './logger.ts';
import { retryingClosedConnections } from './stale-connection.ts';

export type { ReconnectOptions };

/**
 * Settings of a {@link ServiceClient}. Required: `baseUrl`, and either `apiKey` or `identity`.
 */
export interface ServiceConfig extends Omit<CommonConfig, 'apiKey'> {
  /** A secret key (`svs_…`, backend services) or a public key (`svp_…`). */
  apiKey?: string;
  /**
   * Instead of `apiKey`: a workload identity whose platform token the client exchanges for
   * short-lived keys, at `create()` and again before each key expires.
   */
  identity?: WorkloadIdentity;
  /**
   * Folder under which the client creates its private folder for file secrets. Default: the
   * operating system's temp folder.
   */
  secretFilesDir?: string;
}

/** A validated configuration with every default filled in. */
export interface ResolvedConfig extends ResolvedCommon {
  secretFilesDir: string | undefined;
  /** The workload identity; `apiKey` and `keyType` are then its current key's. */
  identity: ResolvedIdentity | undefined;
}

/** Checks `config` and fills in defaults; a `TypeError` names the first problem found. */
export function resolveConfig(config: ServiceConfig): ResolvedConfig {
  const identity = config?.identity;
  if (identity !== undefined && config.apiKey !== undefined) {
    throw new TypeError('apiKey and identity exclude each other: give one');
  }
  // With an identity, the key comes from the first exchange.
  const common =
    identity === undefined
      ? resolveCommon(config as CommonConfig, defaultLogger)
      : resolveCommon({ ...config, apiKey: '' }, defaultLogger, () => 'sk');
  if (config.secretFilesDir !== undefined && typeof config.secretFilesDir !== 'string') {
    throw new TypeError('secretFilesDir must be a string');
  }
  return {
    ...common,
    fetch: retryingClosedConnections(common.fetch),
    secretFilesDir: config.secretFilesDir,
    identity: identity === undefined ? undefined : resolveIdentity(identity),
  };
}
