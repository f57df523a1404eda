/**
 * The settings every client shares, Node or browser, and their validation: anything missing or
 * malformed is a `TypeError` before any request is made. Each entry adds its own (file secrets
 * in Node, a bootstrap snapshot in browsers) and its own default logger.
 */
import { keyTypeOf, type KeyType } from './api-key.ts';
import type { ServiceLogger } from './service-logger.ts';

/** Settings of both entries' clients. Only `baseUrl` and `apiKey` are required. */
export interface CommonConfig {
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
  /** Where the client logs. Default: the entry's `defaultLogger()` (named `ServiceClient`). */
  logger?: ServiceLogger;
  /** Stream reconnection tuning; the defaults are the contract's. */
  reconnect?: ReconnectOptions;
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

/** The shared settings validated, with every default filled in. */
export interface ResolvedCommon {
  baseUrl: string;
  apiKey: string;
  keyType: KeyType;
  stream: boolean;
  cacheTtlMs: number;
  requestTimeoutMs: number;
  logger: ServiceLogger;
  reconnect: Required<ReconnectOptions>;
  fetch: typeof globalThis.fetch;
}

const TIMES = { cacheTtlMs: 60_000, requestTimeoutMs: 10_000 };
/** The contract's reconnect numbers. */
const RECONNECT = {
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  resetAfterMs: 60_000,
  silenceTimeoutMs: 45_000,
};

/**
 * Checks the shared settings of `config` and fills in defaults (`fallbackLogger` when it names
 * no logger); a `TypeError` names the first problem found, never the key itself. `checkKey`
 * gives the key's type (a Node client with a workload identity has no key yet: its own).
 */
export function resolveCommon(
  config: CommonConfig,
  fallbackLogger: () => ServiceLogger,
  checkKey: (apiKey: string) => KeyType | undefined = keyTypeOf,
): ResolvedCommon {
  // No config at all: destructuring it is the TypeError.
  const {
    apiKey,
    stream = true,
    logger = fallbackLogger(),
    // Bound: a browser's fetch throws "Illegal invocation" when called as a method.
    fetch = globalThis.fetch?.bind(globalThis),
  } = config;
  const key = typeof apiKey === 'string' ? apiKey.trim() : '';
  const keyType = checkKey(key);
  if (keyType === undefined) throw new TypeError('apiKey is not a valid svs_ or svp_ key');
  must(typeof fetch === 'function', 'fetch', 'a function');
  must(typeof stream === 'boolean', 'stream', 'a boolean');
  for (const method of ['debug', 'info', 'error'] as const) {
    must(typeof logger?.[method] === 'function', `logger.${method}`, 'a function');
  }
  return {
    baseUrl: resolveBaseUrl(config.baseUrl),
    apiKey: key,
    keyType,
    stream,
    logger,
    fetch,
    ...durations(config, TIMES, ''),
    reconnect: durations(config.reconnect ?? {}, RECONNECT, 'reconnect.'),
  };
}

/** The `TypeError` of a setting that is not what it must be (its value is never echoed). */
export function must(ok: unknown, setting: string, what: string): asserts ok {
  if (!ok) throw new TypeError(`${setting} must be ${what}`);
}

function resolveBaseUrl(raw: unknown): string {
  let url: URL | undefined;
  try {
    url = new URL(String(raw).trim());
  } catch {
    // Not a URL: refused below.
  }
  must(
    typeof raw === 'string' &&
      /^https?:$/.test(url?.protocol ?? '') &&
      url!.search + url!.hash + url!.username + url!.password === '',
    'baseUrl',
    'an http(s) URL without credentials, query or fragment',
  );
  return url!.href.replace(/\/+$/, '');
}

/** `defaults` with each of `given`'s values that is set; each must be a positive number. */
function durations<T extends Record<string, number>>(
  given: Partial<Record<keyof T, unknown>>,
  defaults: T,
  prefix: string,
): T {
  const resolved = { ...defaults };
  for (const name in defaults) {
    const value = given[name];
    if (value === undefined) continue;
    must(
      typeof value === 'number' && value > 0 && value < Infinity,
      prefix + name,
      'a positive number (ms)',
    );
    resolved[name] = value as T[typeof name];
  }
  return resolved;
}
