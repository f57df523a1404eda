/**
 * `ServiceClient`: configs, flags and secrets of one key's view, read from an in-memory cache
 * that a sync fills and the change stream keeps current; AB evaluation and the secret write API
 * over the network.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { EventSourceMessage } from 'eventsource-parser';
import type { KeyType } from './api-key.ts';
import { resolveConfig, type ResolvedConfig, type ServiceConfig } from './config.ts';
import {
  ServiceError,
  ServiceInitError,
  ServicePublicKeyError,
  ServiceQuarantinedError,
  ServiceSecretNotFoundError,
} from './errors.ts';
import { FileSecrets } from './file-secrets.ts';
import {
  applyChanges,
  diff,
  parseChange,
  parseSnapshot,
  type Change,
  type ItemChange,
  type JsonValue,
  type Snapshot,
} from './snapshot.ts';
import { StreamConnection } from './stream.ts';
import { describe, errorOf, Transport, type Operation } from './transport.ts';

/** What changed in the cache, as one batch. */
export interface ChangeSet {
  /** The cache's revision after the change. */
  revision: number;
  /** `sync` for a snapshot that replaced the cache, `stream` for pushed changes. */
  source: 'sync' | 'stream';
  /** Every item that was added, changed or removed; read the new values from the client. */
  changes: readonly Change[];
}

/** Called after the cache changed. Thrown errors are logged and otherwise ignored. */
export type ChangeListener = (changeSet: ChangeSet) => void;

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

const EMPTY: Snapshot = { revision: -1, configs: new Map(), flags: new Map(), secrets: new Map() };

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
export class ServiceClient implements AsyncDisposable {
  private snapshot: Snapshot = EMPTY;
  private etag: string | undefined;
  private syncedAt = new Date(0);
  /** The time-to-live counts from here: the end of the last sync attempt or of the stream. */
  private freshAt = 0;
  private quarantinedUntil = 0;
  /** The stream asked for a sync that could not run yet. */
  private resyncPending = false;
  /** Counts stream batches applied, so a sync can tell it raced one. */
  private streamBatches = 0;
  private syncRunning: Promise<void> | undefined;
  private syncQueued: Promise<void> | undefined;
  private ttlTimer: NodeJS.Timeout | undefined;
  private streamConnected = false;
  private closing: Promise<void> | undefined;
  private readonly closeController = new AbortController();
  private readonly listeners = new Set<ChangeListener>();
  private readonly transport: Transport;
  private readonly files: FileSecrets;
  private readonly stream: StreamConnection;

  private constructor(private readonly config: ResolvedConfig) {
    this.transport = new Transport({ ...config, closed: this.closeController.signal });
    this.files = new FileSecrets(config.secretFilesDir, config.logger);
    this.stream = new StreamConnection(this.transport, config, {
      resumeAfter: () => (this.snapshot.revision >= 0 ? this.snapshot.revision : undefined),
      onEvents: (events) => this.onStreamEvents(events),
      onState: (connected) => this.onStreamState(connected),
    });
  }

  /**
   * Checks `config`, runs the initial sync, and (unless `stream: false`) starts the change stream
   * without waiting for it.
   *
   * @throws TypeError (as a rejection, before any request) when `baseUrl` or `apiKey` is missing
   *   or invalid, including a key whose checksum is wrong, or another setting is malformed.
   * @throws {@link ServiceInitError} when the initial sync fails; its `cause` is the reason
   *   ({@link ServiceUnauthorizedError}, {@link ServiceNotFoundError},
   *   {@link ServiceQuarantinedError}, or a {@link ServiceError} for network failures).
   */
  static async create(config: ServiceConfig): Promise<ServiceClient> {
    const client = new ServiceClient(resolveConfig(config));
    try {
      await client.sync();
    } catch (error) {
      await client.close();
      throw new ServiceInitError(error);
    }
    if (client.config.stream) client.connectStream();
    return client;
  }

  // ---- reads (from the cache) ----

  /**
   * A config's value, or `undefined` when the key is absent (`null` is a config whose value is
   * JSON null). The value is frozen: it is shared with the cache.
   */
  getConfig(key: string): JsonValue | undefined {
    return this.snapshot.configs.get(key);
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
    if (!configs.has(key)) return undefined;
    const result = schema['~standard'].validate(configs.get(key));
    if (result instanceof Promise) {
      throw new TypeError('getConfigAs needs a schema that validates synchronously');
    }
    if (result.issues !== undefined) {
      const issues = result.issues
        .map((issue) => {
          const path = issue.path
            ?.map((p) => (typeof p === 'object' ? String(p.key) : String(p)))
            .join('.');
          return path ? `${path}: ${issue.message}` : issue.message;
        })
        .join('; ');
      throw new TypeError(`config "${key}" does not match the schema: ${issues}`, {
        cause: result.issues,
      });
    }
    return result.value;
  }

  /** Every config of the cache, as a new object (public keys see `is_public` configs only). */
  getAllConfigs(): Record<string, JsonValue> {
    return Object.fromEntries(this.snapshot.configs);
  }

  /** A flag's `is_active`, or `defaultValue` (default `false`) when the flag is absent. */
  getFlag(key: string, defaultValue = false): boolean {
    return this.snapshot.flags.get(key) ?? defaultValue;
  }

  /** Every flag of the cache (key to `is_active`), as a new object. */
  getAllFlags(): Record<string, boolean> {
    return Object.fromEntries(this.snapshot.flags);
  }

  /**
   * A secret's plaintext (for a file secret: the file's content).
   *
   * @throws {@link ServicePublicKeyError} when this client holds a public key.
   * @throws {@link ServiceSecretNotFoundError} when the secret is not in the cache.
   */
  getSecret(key: string): string {
    if (this.config.keyType === 'pk') throw new ServicePublicKeyError('getSecret');
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

  /** `sk` for a secret key, `pk` for a public key (from the configured key). */
  getKeyType(): KeyType {
    return this.config.keyType;
  }

  /** When the last sync succeeded (a 304 counts: the cache was confirmed current). */
  getSyncedAt(): Date {
    return new Date(this.syncedAt.getTime());
  }

  /** True while the change stream is connected. */
  isStreamConnected(): boolean {
    return this.streamConnected;
  }

  /**
   * Calls `listener` after each change of the cache (a sync that brought something new, or
   * pushed changes). Returns a function that removes the listener.
   */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- network ----

  /**
   * Syncs now, whatever the time-to-live says: a conditional `GET /v1/sync` (`If-None-Match`);
   * a new snapshot replaces the cache at once, a 304 restarts the time-to-live. Calls made while
   * a sync runs share one follow-up sync.
   *
   * @throws {@link ServiceQuarantinedError} when the key is quarantined (at once, without a
   *   request, until the server's `Retry-After` has passed).
   * @throws {@link ServiceUnauthorizedError} / {@link ServiceNotFoundError} on 401 / 404, and
   *   {@link ServiceError} for network or protocol failures. The cache is kept either way.
   */
  sync(): Promise<void> {
    if (this.closeController.signal.aborted) {
      return Promise.reject(new ServiceError('the client is closed'));
    }
    if (this.syncRunning === undefined) return this.startSync();
    this.syncQueued ??= this.syncRunning
      .catch(() => undefined)
      .then(() => {
        this.syncQueued = undefined;
        return this.startSync();
      });
    return this.syncQueued;
  }

  /**
   * Evaluates flags for one user with AB Testing semantics (`POST /v1/flags/evaluate-ab`),
   * always over the network. Every requested key is in the answer; unknown or inactive flags
   * are `false`.
   *
   * @param keys 1 to 100 flag keys.
   * @param userId The user's id (1 to 256 characters): the rollout bucket is sticky per user.
   * @param attributes Targeting attributes (up to 50), such as `{ country: 'DE' }`.
   * @throws {@link ServiceAbAddonNotAvailableError} (403), {@link ServiceBillingError} (402),
   *   {@link ServiceUnauthorizedError} (401), {@link ServiceError} for anything else.
   */
  async evaluateAB(
    keys: readonly string[],
    userId: string,
    attributes: Record<string, unknown> = {},
  ): Promise<Record<string, boolean>> {
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) {
      throw new TypeError('keys must be an array of strings');
    }
    if (typeof userId !== 'string') throw new TypeError('userId must be a string');
    if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) {
      throw new TypeError('attributes must be an object');
    }
    const response = await this.transport.send('/v1/flags/evaluate-ab', {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: { flags: keys, user_id: userId, attributes },
    });
    await this.expectOk(response, 'evaluateAB');
    const body = await this.transport.json(response, 'evaluateAB');
    const results = (body as { results?: unknown } | null)?.results;
    if (
      typeof results !== 'object' ||
      results === null ||
      !Object.values(results).every((v) => typeof v === 'boolean')
    ) {
      throw new ServiceError('evaluateAB: the answer has no results map of booleans');
    }
    return results as Record<string, boolean>;
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
    const response = await this.transport.send(`/v1/secrets/${encodeURIComponent(key)}`, {
      method: 'PUT',
      headers: { accept: 'application/json' },
      body:
        expectedVersion === undefined ? { value } : { value, expected_version: expectedVersion },
    });
    await this.expectOk(response, 'write');
    const body = (await this.transport.json(response, 'setSecret')) as Record<string, unknown>;
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
    const response = await this.transport.send(`/v1/secrets/${encodeURIComponent(key)}`, {
      method: 'DELETE',
    });
    await this.expectOk(response, 'write');
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
    const response = await this.transport.send(
      `/v1/secrets/${encodeURIComponent(key)}/versions/${version}`,
      { method: 'DELETE' },
    );
    await this.expectOk(response, 'write');
    await response.body?.cancel();
  }

  /**
   * Starts the change stream (idempotent). While it is connected, changes reach the cache
   * within milliseconds and the time-to-live re-sync pauses. It reconnects by itself with
   * backoff; a 401 or 404 stops it until the next `connectStream()`.
   */
  connectStream(): void {
    if (this.closeController.signal.aborted) throw new ServiceError('the client is closed');
    this.stream.start();
  }

  /** Stops the change stream (idempotent); resolves once the connection is closed. */
  disconnectStream(): Promise<void> {
    return this.stream.stop();
  }

  /**
   * Stops the stream and the background re-sync, ends requests in flight, and removes the files
   * of file secrets. Idempotent. Reads keep answering from the last cache; network calls fail
   * with a {@link ServiceError}.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closeController.abort();
      clearTimeout(this.ttlTimer);
      this.ttlTimer = undefined;
      await this.stream.stop();
      this.files.close();
      this.listeners.clear();
    })();
    return this.closing;
  }

  /** Same as {@link close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  // ---- internals ----

  private startSync(): Promise<void> {
    const running = this.fetchSnapshot().finally(() => {
      if (this.syncRunning === running) this.syncRunning = undefined;
      this.freshAt = Date.now();
      this.scheduleTtl();
    });
    this.syncRunning = running;
    return running;
  }

  private async fetchSnapshot(): Promise<void> {
    const { logger } = this.config;
    const waitMs = this.quarantinedUntil - Date.now();
    if (waitMs > 0) {
      throw new ServiceQuarantinedError(
        `sync: the key is quarantined for another ${Math.ceil(waitMs / 1000)} s`,
        { status: 429, code: 'sync_quarantined', retryAfter: Math.ceil(waitMs / 1000) },
      );
    }
    const batchesBefore = this.streamBatches;
    // Snapshots over 1 KiB come gzip-encoded then (fetch decodes; browsers set their own).
    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-encoding': 'gzip',
    };
    if (this.etag !== undefined) headers['if-none-match'] = this.etag;
    const response = await this.transport.send('/v1/sync', { headers });
    if (response.status === 304) {
      await response.body?.cancel();
      this.synced();
      logger.debug(`sync: not modified (revision ${this.snapshot.revision})`);
      return;
    }
    if (!response.ok) {
      const error = await errorOf(response, 'sync');
      if (error instanceof ServiceQuarantinedError) {
        this.quarantinedUntil = Date.now() + error.retryAfter * 1000;
        logger.info(`sync quarantined by the server: no sync for ${error.retryAfter} s`);
      }
      throw error;
    }
    const next = parseSnapshot(await this.transport.json(response, 'sync'));
    if (this.streamBatches !== batchesBefore && next.revision < this.snapshot.revision) {
      // The stream brought newer changes while this answer was on its way: keep them.
      this.synced();
      return;
    }
    this.etag = response.headers.get('etag') ?? undefined;
    this.replace(next, 'sync');
    this.synced();
    logger.debug(`sync: revision ${next.revision}`);
  }

  private synced(): void {
    this.syncedAt = new Date();
    this.resyncPending = false;
  }

  /** Swaps the cache for `next`: files first, so a visible secret's file is on disk. */
  private replace(next: Snapshot, source: ChangeSet['source']): void {
    const previous = this.snapshot;
    if (next.secrets !== previous.secrets) this.files.update(next.secrets);
    this.snapshot = next;
    if (this.listeners.size === 0) return;
    const changes = diff(previous, next);
    if (changes.length === 0) return;
    const changeSet: ChangeSet = { revision: next.revision, source, changes };
    for (const listener of this.listeners) {
      try {
        listener(changeSet);
      } catch (error) {
        this.config.logger.error('a change listener threw', error);
      }
    }
  }

  private onStreamEvents(events: readonly EventSourceMessage[]): void {
    let pending: ItemChange[] = [];
    const flush = () => {
      const current = this.snapshot.revision;
      const fresh = pending.filter((change) => change.revision >= current);
      pending = [];
      if (fresh.length === 0) return;
      this.streamBatches++;
      this.replace(applyChanges(this.snapshot, fresh), 'stream');
      this.config.logger.debug(
        `stream: ${fresh.length} change(s), revision ${this.snapshot.revision}`,
      );
    };
    for (const event of events) {
      if (event.event === 'change') {
        try {
          pending.push(parseChange(event.data));
        } catch (error) {
          this.config.logger.error('stream: ignored a malformed change event', error);
        }
      } else if (event.event === 'resync') {
        flush();
        const revision = revisionOf(event.data);
        if (revision !== this.snapshot.revision)
          this.backgroundSync('the stream asked for a resync');
      }
    }
    flush();
  }

  private onStreamState(connected: boolean): void {
    this.streamConnected = connected;
    // The stream kept the cache current until now: the time-to-live starts here.
    if (!connected) this.freshAt = Date.now();
    this.scheduleTtl();
  }

  private backgroundSync(reason: string): void {
    this.sync().catch((error: unknown) => {
      if (this.closeController.signal.aborted) return;
      this.resyncPending = true;
      this.scheduleTtl();
      const level = error instanceof ServiceQuarantinedError ? 'info' : 'error';
      const message = `background sync (${reason}) failed: ${describe(error)}`;
      if (level === 'info') this.config.logger.info(message);
      else this.config.logger.error(message, error);
    });
  }

  /**
   * Plans the next background sync: a time-to-live after the cache was last known current while
   * no stream is connected, or a sync the stream asked for that had to wait (quarantine).
   */
  private scheduleTtl(): void {
    clearTimeout(this.ttlTimer);
    this.ttlTimer = undefined;
    if (this.closeController.signal.aborted) return;
    if (this.streamConnected && !this.resyncPending) return;
    const due = Math.max(this.freshAt + this.config.cacheTtlMs, this.quarantinedUntil);
    this.ttlTimer = setTimeout(
      () => {
        this.ttlTimer = undefined;
        if (this.syncRunning === undefined) this.backgroundSync('cache time-to-live');
      },
      Math.max(0, due - Date.now()),
    );
    this.ttlTimer.unref();
  }

  private requireSecretKey(operation: string): void {
    if (this.config.keyType === 'pk') throw new ServicePublicKeyError(operation);
  }

  private async expectOk(response: Response, operation: Operation): Promise<void> {
    if (!response.ok) throw await errorOf(response, operation);
  }
}

function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key === '') throw new TypeError('key must be a non-empty string');
}

function revisionOf(data: string): number | undefined {
  try {
    const revision = (JSON.parse(data) as { revision?: unknown }).revision;
    return typeof revision === 'number' ? revision : undefined;
  } catch {
    return undefined;
  }
}
