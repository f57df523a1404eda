/**
 * The Node entry's `ServiceClient`: configs, flags and secrets of one key's view, read from an
 * in-memory cache that a sync fills and the change stream keeps current (cached-client.ts, shared
 * with the browser entry), plus what only a backend has: secrets, file secrets on disk and the
 * secret write API.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { KeyType } from './api-key.ts';
import { CachedClient } from './cached-client.ts';
import { resolveConfig, type ResolvedConfig, type ServiceConfig } from './config.ts';
import {
  ServiceError,
  ServiceInitError,
  ServicePublicKeyError,
  ServiceRateLimitedError,
  ServiceSecretNotFoundError,
  ServiceUnauthorizedError,
  type RetryAfterDetails,
} from './errors.ts';
import { FileSecrets } from './file-secrets.ts';
import type { MintedKey } from './identity/exchange.ts';
import { KeyRefresher } from './identity/key-refresher.ts';
import { checkConfig } from './schema-check.ts';
import { readSecret, type Snapshot } from './snapshot.ts';
import { readJson, USER_AGENT, type RequestOptions } from './transport.ts';

export type { ChangeListener, ChangeSet } from './client-status.ts';

/** The answer to a successful {@link ServiceClient.setSecret}. */
export interface SecretWriteResult {
  /** The secret's key. */
  key: string;
  /** The new version's number. */
  version: number;
  /** True when the write created the secret. */
  created: boolean;
}

/** Options of {@link ServiceClient.setSecret}. */
export interface SetSecretOptions {
  /**
   * Write only if the secret's current version is this one (0: only if it does not exist yet);
   * otherwise the write fails with a {@link ServiceError} whose `code` is `version_conflict`.
   */
  expectedVersion?: number;
}

/** What the Node entry's requests add: its name, and no cache between it and the service. */
const NODE_INIT = {
  headers: {
    'user-agent': USER_AGENT,
    // No cache between the client and the service: the stream must not be buffered.
    'cache-control': 'no-cache',
    // Snapshots over 1 KiB come gzip-encoded then, which fetch decodes. (Browsers choose the
    // encodings themselves: the header is theirs.)
    'accept-encoding': 'gzip',
  },
};

/**
 * The service's client. Create one per process with {@link ServiceClient.create}, read from it
 * anywhere (reads are synchronous, from memory), and {@link ServiceClient.close} it at shutdown
 * (or `await using client = await ServiceClient.create(…)`).
 *
 * @example
 * ```ts
 * const client = await ServiceClient.create({
 *   baseUrl: 'https://acme.config.example.com',
 *   apiKey: process.env.SERVICE_API_KEY!,
 * });
 * if (client.getFlag('checkout.v2')) { … }
 * const pool = client.getConfigAs('db.pool', z.object({ max: z.number() }));
 * ```
 */
export class ServiceClient extends CachedClient implements AsyncDisposable {
  private readonly files: FileSecrets;
  /** Whether the stream should run: it restarts under each new key of a workload identity. */
  private streamWanted = false;

  private constructor(
    config: ResolvedConfig,
    private readonly refresher?: KeyRefresher,
  ) {
    super(config, NODE_INIT, readSecret);
    this.files = new FileSecrets(config.secretFilesDir, config.logger);
  }

  /**
   * Checks `config`, exchanges the workload identity's token for a key (with `identity`), runs
   * the initial sync, and (unless `stream: false`) starts the change stream without waiting for
   * it. A workload identity's key is then refreshed in the background before it expires.
   *
   * @throws TypeError (as a rejection, before any request) when `baseUrl`, or `apiKey` or
   *   `identity`, is missing or invalid, including a key whose checksum is wrong, or another
   *   setting is malformed.
   * @throws {@link ServiceInitError} when the exchange or the initial sync fails; its `cause` is
   *   the reason ({@link ServiceUnauthorizedError} — for an exchange, naming the failed check —
   *   {@link ServiceNotFoundError}, {@link ServiceQuarantinedError},
   *   {@link ServiceRateLimitedError} for too many exchanges, or a {@link ServiceError} for
   *   network failures and unreadable tokens).
   */
  static async create(config: ServiceConfig): Promise<ServiceClient> {
    const resolved = resolveConfig(config);
    const refresher = resolved.identity && new KeyRefresher(resolved.identity, resolved);
    let key: MintedKey | undefined;
    try {
      key = await refresher?.exchange();
    } catch (error) {
      refresher!.stop();
      throw new ServiceInitError(error);
    }
    if (key) Object.assign(resolved, { apiKey: key.key, keyType: key.keyType });
    const client = new ServiceClient(resolved, refresher);
    if (key) {
      refresher!.start(key, (next, refused) => client.useKey(next, refused));
      // A 401 of a minted key is no reason to stop: it expired before a refresh succeeded.
      client.onStatusChange(() => {
        if (client.getStatus().error instanceof ServiceUnauthorizedError) refresher!.keyRefused();
      });
    }
    try {
      await client.sync();
    } catch (error) {
      await client.close();
      throw new ServiceInitError(error);
    }
    if (client.config.stream) client.connectStream();
    return client;
  }

  /**
   * A config's value checked and converted by a Standard Schema validator (zod, valibot,
   * ArkType, …), or `undefined` when the key is absent.
   *
   * @throws TypeError when the value does not satisfy the schema (the issues are in `cause`),
   *   or when the schema validates asynchronously.
   */
  getConfigAs<S extends StandardSchemaV1>(
    key: string,
    schema: S,
  ): StandardSchemaV1.InferOutput<S> | undefined {
    const configs = this.snapshot.configs;
    return configs.has(key) ? checkConfig(key, configs.get(key), schema) : undefined;
  }

  /** `sk` for a secret key, `pk` for a public key (from the configured key). */
  getKeyType(): KeyType {
    return this.config.keyType;
  }

  /** When the last sync succeeded (a 304 counts: the cache was confirmed current). */
  getSyncedAt(): Date {
    return new Date(this.getStatus().syncedAt?.getTime() ?? 0);
  }

  /** True while the change stream is connected. */
  isStreamConnected(): boolean {
    return this.getStatus().streamConnected;
  }

  /**
   * A secret's plaintext (for a file secret: the file's content).
   *
   * @throws {@link ServicePublicKeyError} when this client holds a public key.
   * @throws {@link ServiceSecretNotFoundError} when the secret is not in the cache.
   */
  getSecret(key: string): string {
    this.requireSecretKey('getSecret');
    const secret = this.snapshot.secrets.get(key);
    if (secret === undefined) throw new ServiceSecretNotFoundError(key);
    return secret.value;
  }

  /**
   * Every secret of the cache (key to plaintext; for a file secret, the file's content), as a new
   * object: what a process launcher such as `svc run` hands on, together with
   * {@link getSecretFilePath} for file secrets.
   *
   * @throws {@link ServicePublicKeyError} when this client holds a public key.
   */
  getAllSecrets(): Record<string, string> {
    if (this.config.keyType === 'pk') throw new ServicePublicKeyError('getAllSecrets');
    const secrets: Record<string, string> = {};
    for (const [key, secret] of this.snapshot.secrets) secrets[key] = secret.value;
    return secrets;
  }

  /**
   * The absolute path of the file written for a file secret (mode 0600, in a private folder
   * that `close()` removes), or `undefined` for an unknown key, a text secret, or a public key.
   */
  getSecretFilePath(key: string): string | undefined {
    return this.files.pathOf(key);
  }

  /**
   * Creates or updates a secret (type `text`) with a new version, in the key's service scope
   * when the key is bound to a service, else at project level. The cache sees it through the
   * stream within milliseconds, or at the next `sync()`.
   *
   * @throws {@link ServicePublicKeyError} at once, without a request, for a public key.
   * @throws {@link ServiceRateLimitedError} (429, with `retryAfter`), {@link ServiceBillingError}
   *   (402), {@link ServiceUnauthorizedError} (401), {@link ServiceError} for anything else
   *   (`code` `version_conflict` when `expectedVersion` did not match, `invalid_request`, …).
   */
  async setSecret(
    key: string,
    value: string,
    options: SetSecretOptions = {},
  ): Promise<SecretWriteResult> {
    this.requireSecretKey('setSecret');
    checkKey(key);
    if (typeof value !== 'string') throw new TypeError('value must be a string');
    const { expectedVersion } = options;
    if (
      expectedVersion !== undefined &&
      !(Number.isSafeInteger(expectedVersion) && expectedVersion >= 0)
    ) {
      throw new TypeError('expectedVersion must be a non-negative integer');
    }
    const response = await this.write('setSecret', `/v1/secrets/${encodeURIComponent(key)}`, {
      method: 'PUT',
      body:
        expectedVersion === undefined ? { value } : { value, expected_version: expectedVersion },
    });
    const body = (await readJson(response, 'setSecret')) as Record<string, unknown>;
    if (typeof body?.version !== 'number') {
      throw new ServiceError('setSecret: the answer has no version');
    }
    return { key, version: body.version, created: response.status === 201 };
  }

  /**
   * Deletes a secret and every version of it.
   *
   * @throws {@link ServicePublicKeyError} at once for a public key; {@link ServiceNotFoundError}
   *   (`code` `secret_not_found`) when it does not exist; otherwise as {@link setSecret}.
   */
  async deleteSecret(key: string): Promise<void> {
    this.requireSecretKey('deleteSecret');
    checkKey(key);
    const response = await this.write('deleteSecret', `/v1/secrets/${encodeURIComponent(key)}`, {
      method: 'DELETE',
    });
    await response.body?.cancel();
  }

  /**
   * Deletes one version of a secret; deleting the last remaining version deletes the secret.
   *
   * @throws {@link ServicePublicKeyError} at once for a public key; {@link ServiceNotFoundError}
   *   (`code` `version_not_found`) when that version does not exist; otherwise as
   *   {@link setSecret}.
   */
  async deleteSecretVersion(key: string, version: number): Promise<void> {
    this.requireSecretKey('deleteSecretVersion');
    checkKey(key);
    if (!Number.isSafeInteger(version) || version < 1) {
      throw new TypeError('version must be a positive integer');
    }
    const response = await this.write(
      'deleteSecretVersion',
      `/v1/secrets/${encodeURIComponent(key)}/versions/${version}`,
      { method: 'DELETE' },
    );
    await response.body?.cancel();
  }

  /**
   * Stops the stream and the background re-sync, ends requests in flight, and removes the files
   * of file secrets. Idempotent. Reads keep answering from the last cache; network calls fail
   * with a {@link ServiceError}.
   */
  override close(): Promise<void> {
    return super.close();
  }

  override connectStream(): void {
    super.connectStream();
    this.streamWanted = true;
  }

  override disconnectStream(): Promise<void> {
    this.streamWanted = false;
    return super.disconnectStream();
  }

  /** Same as {@link close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Files first, so a visible secret's file is on disk before the snapshot names it. */
  protected override beforeSwap(next: Snapshot): void {
    if (next.secrets !== this.snapshot.secrets) this.files.update(next.secrets);
  }

  protected override onClose(): void {
    this.refresher?.stop();
    this.files.close();
  }

  /**
   * A workload identity's new key: requests use it from now on, and the stream reconnects under
   * it at once, resuming after the cache's revision (`Last-Event-ID`) so no change is missed.
   * After a refused key, a client without a stream syncs.
   */
  private async useKey(key: MintedKey, refused: boolean): Promise<void> {
    // The transport reads the key from the config at each request.
    Object.assign(this.config, { apiKey: key.key, keyType: key.keyType });
    if (this.closed) return;
    if (!this.streamWanted) {
      if (refused) await this.backgroundSync('a new key after a refused one');
      return;
    }
    await super.disconnectStream();
    if (this.streamWanted && !this.closed) super.connectStream();
  }

  private requireSecretKey(operation: string): void {
    if (this.config.keyType === 'pk') throw new ServicePublicKeyError(operation);
  }

  /**
   * Sends a write of `operation`. Fails as any request (a 429 is a
   * {@link ServiceRateLimitedError}), except that a public key refused is a
   * {@link ServicePublicKeyError}.
   */
  private async write(operation: string, path: string, request: RequestOptions): Promise<Response> {
    try {
      return await this.transport.send(path, 'write', request);
    } catch (error) {
      const { code, status, message } = error as ServiceError;
      if (code === 'public_key_forbidden') throw new ServicePublicKeyError(operation);
      if (status === 429) throw new ServiceRateLimitedError(message, error as RetryAfterDetails);
      throw error;
    }
  }
}

function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key === '') throw new TypeError('key must be a non-empty string');
}
