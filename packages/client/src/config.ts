/**
 * `ServiceConfig`, what the Node entry's `ServiceClient.create()` takes: the shared settings
 * (common-config.ts) plus where file secrets go, and its validation.
 */
import {
  resolveCommon,
  type CommonConfig,
  type ReconnectOptions,
  type ResolvedCommon,
} from './common-config.ts';
import { defaultLogger } from './logger.ts';

export type { ReconnectOptions };

/** Settings of a {@link ServiceClient}. Only `baseUrl` and `apiKey` are required. */
export interface ServiceConfig extends CommonConfig {
  /**
   * Folder under which the client creates its private folder for file secrets. Default: the
   * operating system's temp folder.
   */
  secretFilesDir?: string;
}

/** A validated configuration with every default filled in. */
export interface ResolvedConfig extends ResolvedCommon {
  secretFilesDir: string | undefined;
}

/** Checks `config` and fills in defaults; a `TypeError` names the first problem found. */
export function resolveConfig(config: ServiceConfig): ResolvedConfig {
  const common = resolveCommon(config, defaultLogger);
  if (config.secretFilesDir !== undefined && typeof config.secretFilesDir !== 'string') {
    throw new TypeError('secretFilesDir must be a string');
  }
  return { ...common, secretFilesDir: config.secretFilesDir };
}
