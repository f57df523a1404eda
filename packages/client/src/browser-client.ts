/**
 * The browser entry's `ServiceClient`: the shared cache, sync and stream (cached-client.ts) with
 * a public key only, a snapshot a server rendered to start from, a status to render, and the
 * page's lifecycle: no stream while the page is hidden, catch-up when it is shown again, an
 * immediate reconnect when the network is back.
 */
import { CachedClient } from './cached-client.ts';
import { must, resolveCommon, type CommonConfig } from './common-config.ts';
import { describe, ServiceInitError } from './errors.ts';
import { pageHidden, watchPage } from './page-lifecycle.ts';
import { consoleLogger } from './service-logger.ts';
import { parseSnapshot, type Snapshot } from './snapshot.ts';
import type { RequestInitOf } from './transport.ts';

/** Settings of the browser {@link ServiceClient}. Only `baseUrl` and `apiKey` are required. */
export interface ServiceConfig extends CommonConfig {
  /** A public key (`svp_…`). A secret key is refused: it must never reach a browser. */
  apiKey: string;
  /**
   * A `/v1/sync` answer (its JSON body) that a server fetched with the same public key, such as
   * the one that rendered the page: the client starts from it, so the first paint already has
   * the values, and catches up through the stream (`Last-Event-ID` is its revision).
   */
  bootstrap?: unknown;
}

/** The browser entry's default logger: `info` and `error` to the console, `debug` as verbose. */
export function defaultLogger(name = 'ServiceClient') {
  return consoleLogger(name, (message) => console.debug(`[${name}] ${message}`));
}

/** The browser sets its own user agent; the client's cache replaces the HTTP cache. */
const BROWSER_INIT = { cache: 'no-store' } as RequestInitOf;

/**
 * The service's client for web pages, with a public key. Build it (no request yet) and
 * {@link ServiceClient.start} it, or `await ServiceClient.create(…)`; read from it synchronously.
 *
 * @example
 * ```ts
 * const client = await ServiceClient.create({
 *   baseUrl: 'https://acme.config.example.com',
 *   apiKey: 'svp_…',
 * });
 * client.onChange(() => render(client.getFlag('checkout.v2')));
 * ```
 */
export class ServiceClient extends CachedClient {
  #unwatch: (() => void) | undefined;
  #initialSync: Promise<void> | undefined;

  /**
   * Checks `config` and takes its `bootstrap`; makes no request and starts nothing (safe during
   * server-side rendering).
   *
   * @throws TypeError for a secret key (`svs_…`), a missing or malformed setting, or a
   *   `bootstrap` that is not a public key's `/v1/sync` answer.
   */
  constructor(config: ServiceConfig) {
    const resolved = resolveCommon(config, defaultLogger);
    must(resolved.keyType === 'pk', 'apiKey', 'a public key (svp_) in browsers');
    super(resolved, BROWSER_INIT);
    void this.pause(true);
    if (config.bootstrap !== undefined) this.adopt(bootstrapSnapshot(config.bootstrap));
  }

  /**
   * Builds the client, runs the initial sync (unless `bootstrap` gave the values) and
   * {@link start}s it.
   *
   * @throws TypeError as the constructor; {@link ServiceInitError} when the initial sync fails
   *   (`cause` says why).
   */
  static async create(config: ServiceConfig): Promise<ServiceClient> {
    const client = new ServiceClient(config);
    try {
      if (!client.getStatus().ready) await client.sync();
    } catch (error) {
      await client.close();
      throw new ServiceInitError(error);
    }
    client.start();
    return client;
  }

  /**
   * Goes live (idempotent): the initial sync when there are no values yet, then, while the page
   * is visible, the change stream (unless `stream: false`) and the time-to-live re-sync. A
   * hidden page holds no stream; shown again, it catches up (the stream resumes from the cache's
   * revision, and a time-to-live that passed meanwhile syncs at once). Back `online`, the stream
   * reconnects at once.
   */
  start(): void {
    if (this.#unwatch || this.closed) return;
    this.#unwatch = watchPage(
      (hidden) => void this.pause(hidden),
      () => this.reconnectNow(),
    );
    if (this.config.stream) this.connectStream();
    // Values first, then the stream (whose first event would ask for the same sync).
    this.#initialSync ??= this.getStatus().ready
      ? Promise.resolve()
      : this.backgroundSync('initial');
    void this.#initialSync.then(() => this.#unwatch && this.pause(pageHidden()));
  }

  /**
   * Stops what {@link start} began (stream, re-sync, page events); the cache stays readable
   * and `start()` goes live again. Resolves once the stream is closed.
   */
  stop(): Promise<void> {
    this.onClose();
    return this.pause(true);
  }

  protected override onClose(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
  }
}

/**
 * `bootstrap` as a snapshot: it must be what a public key syncs, values only (read without a
 * secret reader, any secret is off the contract).
 */
function bootstrapSnapshot(body: unknown): Snapshot {
  try {
    if ((body as { key_type?: unknown } | null)?.key_type === 'sk') {
      throw new TypeError("it is a secret key's");
    }
    return parseSnapshot(body);
  } catch (error) {
    throw new TypeError(`bootstrap is not a public key's /v1/sync answer: ${describe(error)}`, {
      cause: error,
    });
  }
}
