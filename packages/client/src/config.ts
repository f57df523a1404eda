/**
 * `ServiceConfig`, what `ServiceClient.create()` takes, and its validation: anything missing or
 * malformed is a `TypeError` before any request is made.
 */
import { keyTypeOf, type KeyType } from './api-key.ts';
import { defaultLogger, type ServiceLogger } from './logger.ts';

/** Settings of a {@link ServiceClient}. Only `baseUrl` and `apiKey` are required. */
export interface ServiceConfig {
  /**
   * The workspace's address: `https://{slug}.{domain}` (host form) or `http://{host}/{slug}`
   * (path form). Endpoints are resolved below it (`{baseUrl}/v1/sync`).
   */
  baseUrl: string;
  /** A secret key (`svs_…`, backend services) or a public key (`svp_…`). */
  apiKey: string;
  /** Open the change stream once the initial sync is done. Default `true`. */
  stream?: boolean;
  /**
   * The cache's time-to-live in milliseconds: while no stream is connected, the client re-syncs
   * in the background this long after the last successful sync. Default 60 000.
   */
  cacheTtlMs?: number;
  /** Time limit of each sync, evaluateAB and write request, in milliseconds. Default 10 000. */
  requestTimeoutMs?: number;
  /** Where the client logs. Default: {@link defaultLogger} (named `ServiceClient`). */
  logger?: ServiceLogger;
  /** Stream reconnection tuning; the defaults are the contract's. */
  reconnect?: ReconnectOptions;
  /**
   * Folder under which the client creates its private folder for file secrets. Default: the
   * operating system's temp folder.
   */
  secretFilesDir?: string;
  /** The `fetch` to use (a proxy-aware one, say). Default: the global `fetch`. */
  fetch?: typeof globalThis.fetch;
}

/** How the stream reconnects. All values in milliseconds. */
export interface ReconnectOptions {
  /** First delay after a failed or lost connection. Default 1 000. */
  initialDelayMs?: number;
  /** The doubling delay stops growing here. Default 30 000. */
  maxDelayMs?: number;
  /** A connection that lasted this long resets the delay to the initial one. Default 60 000. */
  resetAfterMs?: number;
  /** No byte for this long (the server sends a keep-alive every 15 s) counts as a dead connection. Default 45 000. */
  silenceTimeoutMs?: number;
}

/** A validated configuration with every default filled in. */
export interface ResolvedConfig {
  baseUrl: string;
  apiKey: string;
  keyType: KeyType;
  stream: boolean;
  cacheTtlMs: number;
  requestTimeoutMs: number;
  logger: ServiceLogger;
  reconnect: Required<ReconnectOptions>;
  secretFilesDir: string | undefined;
  fetch: typeof globalThis.fetch;
}

/** Checks `config` and fills in defaults; a `TypeError` names the first problem found. */
export function resolveConfig(config: ServiceConfig): ResolvedConfig {
  if (typeof config !== 'object' || config === null) {
    throw new TypeError('ServiceClient config must be an object');
  }
  const baseUrl = resolveBaseUrl(config.baseUrl);
  if (typeof config.apiKey !== 'string' || config.apiKey === '') {
    throw new TypeError('apiKey is required');
  }
  const keyType = keyTypeOf(config.apiKey.trim());
  if (keyType === undefined) {
    throw new TypeError(
      'apiKey is not a valid key: expected svs_ or svp_ followed by 40 letters and digits with a correct checksum',
    );
  }
  const reconnect = config.reconnect ?? {};
  const fetchImpl = config.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw new TypeError('fetch must be a function');
  if (config.logger !== undefined) checkLogger(config.logger);
  if (config.stream !== undefined && typeof config.stream !== 'boolean') {
    throw new TypeError('stream must be a boolean');
  }
  if (config.secretFilesDir !== undefined && typeof config.secretFilesDir !== 'string') {
    throw new TypeError('secretFilesDir must be a string');
  }
  return {
    baseUrl,
    apiKey: config.apiKey.trim(),
    keyType,
    stream: config.stream ?? true,
    cacheTtlMs: duration('cacheTtlMs', config.cacheTtlMs, 60_000),
    requestTimeoutMs: duration('requestTimeoutMs', config.requestTimeoutMs, 10_000),
    logger: config.logger ?? defaultLogger(),
    reconnect: {
      initialDelayMs: duration('reconnect.initialDelayMs', reconnect.initialDelayMs, 1_000),
      maxDelayMs: duration('reconnect.maxDelayMs', reconnect.maxDelayMs, 30_000),
      resetAfterMs: duration('reconnect.resetAfterMs', reconnect.resetAfterMs, 60_000),
      silenceTimeoutMs: duration('reconnect.silenceTimeoutMs', reconnect.silenceTimeoutMs, 45_000),
    },
    secretFilesDir: config.secretFilesDir,
    fetch: fetchImpl,
  };
}

function resolveBaseUrl(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new TypeError('baseUrl is required');
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new TypeError(`baseUrl is not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http or https URL: ${raw}`);
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new TypeError(`baseUrl must not carry credentials, a query or a fragment: ${url.origin}`);
  }
  return url.href.replace(/\/+$/, '');
}

function duration(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(`${name} must be a positive number of milliseconds`);
  }
  return value;
}

function checkLogger(logger: ServiceLogger): void {
  for (const method of ['debug', 'info', 'error'] as const) {
    if (typeof logger?.[method] !== 'function') {
      throw new TypeError(`logger.${method} must be a function`);
    }
  }
}
