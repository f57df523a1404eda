/**
 * Keeps a workload identity's key fresh: exchanges again at `refreshAt` (2/3) of each key's
 * life, and sooner when the api refused the key (it expired before a refresh succeeded, or the
 * identity changed). A failed exchange is retried with backoff — after a 429 not before its
 * `Retry-After` — for as long as the client lives: meanwhile the client serves from its cache.
 */
import { Backoff } from '../backoff.ts';
import { describe, ServiceRateLimitedError } from '../errors.ts';
import type { ServiceLogger } from '../service-logger.ts';
import { unrefTimer, type Timer } from '../timers.ts';
import { exchangeKey, type MintedKey } from './exchange.ts';
import { credentialSource, type CredentialSource } from './token-source.ts';
import type { ResolvedIdentity } from './workload-identity.ts';

export interface RefresherContext {
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  requestTimeoutMs: number;
  logger: ServiceLogger;
}

/** Called with each new key; `refused`: the api had refused the one before. */
export type KeyListener = (key: MintedKey, refused: boolean) => void | Promise<void>;

/** A timer's longest delay in Node (about 24.8 days). */
const MAX_DELAY_MS = 2 ** 31 - 1;
/** No refresh sooner than this after a key: a server's tiny `expires_in` is no busy loop. */
const MIN_DELAY_MS = 100;

export class KeyRefresher {
  readonly #closed = new AbortController();
  readonly #source: CredentialSource;
  readonly #backoff: Backoff;
  #listener: KeyListener | undefined;
  #timer: Timer | undefined;
  #running: Promise<void> | undefined;
  /** The api refused the current key: the next key is wanted at once. */
  #refused = false;
  /** The last exchange failed; the next attempt is planned. */
  #retrying = false;

  constructor(
    private readonly identity: ResolvedIdentity,
    private readonly context: RefresherContext,
  ) {
    this.#source = credentialSource(identity, { ...context, signal: this.#closed.signal });
    this.#backoff = new Backoff({ ...identity.retry, resetAfterMs: Infinity });
  }

  /** One exchange: the platform's proof for a key. Rejects as {@link exchangeKey} does. */
  async exchange(): Promise<MintedKey> {
    const credential = await this.#source();
    const context = { ...this.context, signal: this.#closed.signal };
    return exchangeKey(context, this.identity.identityId, credential);
  }

  /** Starts refreshing `key` (the one {@link exchange} gave), telling `listener` each new one. */
  start(key: MintedKey, listener: KeyListener): void {
    this.#listener = listener;
    this.#plan(key.lifetimeMs * this.identity.refreshAt);
  }

  /** The api answered 401 to the current key: exchange soon, unless that is under way. */
  keyRefused(): void {
    if (this.#closed.signal.aborted) return;
    const planned = this.#refused || this.#retrying || this.#running !== undefined;
    this.#refused = true;
    if (planned) return;
    const delay = this.#backoff.next();
    this.context.logger.info(`identity: the key was refused; exchanging again in ${delay} ms`);
    this.#plan(delay);
  }

  /** Stops the timer and ends an exchange in flight. */
  stop(): void {
    this.#closed.abort();
    clearTimeout(this.#timer);
  }

  #plan(delayMs: number): void {
    clearTimeout(this.#timer);
    if (this.#closed.signal.aborted) return;
    const delay = Math.min(MAX_DELAY_MS, Math.max(0, delayMs));
    this.#timer = unrefTimer(setTimeout(() => void this.#refresh(), delay));
  }

  #refresh(): Promise<void> {
    return (this.#running ??= (async () => {
      const { logger } = this.context;
      try {
        const key = await this.exchange();
        const refused = this.#refused;
        this.#refused = this.#retrying = false;
        // A scheduled refresh that worked starts the delays over; one after a refusal does not,
        // so a key the api keeps refusing cannot make the client exchange in a tight loop.
        if (!refused) this.#backoff.reset();
        logger.info(`identity: new key, valid for ${Math.round(key.lifetimeMs / 1000)} s`);
        await this.#listener?.(key, refused);
        // Refused meanwhile: this key too, or a request made with the last one.
        if (this.#refused) this.#plan(this.#backoff.next());
        else this.#plan(Math.max(MIN_DELAY_MS, key.lifetimeMs * this.identity.refreshAt));
      } catch (error) {
        if (this.#closed.signal.aborted) return;
        this.#retrying = true;
        let delay = this.#backoff.next();
        if (error instanceof ServiceRateLimitedError) {
          delay = Math.max(delay, error.retryAfter * 1000);
        }
        logger.error(
          `identity: exchange failed, retrying in ${delay} ms: ${describe(error)}`,
          error,
        );
        this.#plan(delay);
      } finally {
        this.#running = undefined;
      }
    })());
  }
}
