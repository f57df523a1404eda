/**
 * An OpenFeature provider (server SDK) over `@svc/client`'s `ServiceClient`: booleans from flags
 * (or a boolean config), strings, numbers and objects from configs, read from the client's live
 * cache; a context with a `targetingKey` has its active flags evaluated by the server's
 * evaluate-ab for that user. Events follow the client: its changes are
 * `PROVIDER_CONFIGURATION_CHANGED` with the changed keys, its status `PROVIDER_READY`,
 * `PROVIDER_ERROR` and `PROVIDER_STALE`.
 */
import {
  ErrorCode,
  FlagNotFoundError,
  GeneralError,
  OpenFeatureEventEmitter,
  ProviderEvents,
  ProviderFatalError,
  StandardResolutionReasons,
  TypeMismatchError,
  type EvaluationContext,
  type JsonValue,
  type Provider,
  type ResolutionDetails,
} from '@openfeature/server-sdk';
import {
  ServiceAbAddonNotAvailableError,
  ServiceBillingError,
  ServiceClient,
  ServiceInitError,
  ServiceUnauthorizedError,
  type ServiceConfig,
} from '@svc/client';
import { UserEvaluations } from './user-evaluations.ts';

/** How long evaluate-ab stays unused after the server said the add-on is off or billing overdue. */
export const AB_UNAVAILABLE_RETRY_MS = 60_000;

/** A client the provider creates (and closes), or one the application created and owns. */
export type SvcProviderOptions = ServiceConfig | { client: ServiceClient };

type Health = 'ready' | 'error' | 'stale';

export class SvcProvider implements Provider {
  readonly metadata = { name: 'svc' } as const;
  readonly runsOn = 'server';
  readonly events = new OpenFeatureEventEmitter();
  private current: ServiceClient | undefined;
  private readonly owned: boolean;
  private readonly stops: Array<() => void> = [];
  private health: Health = 'ready';
  private abUnavailableUntil = 0;
  private readonly users = new UserEvaluations(() => this.client);

  constructor(private readonly options: SvcProviderOptions) {
    this.owned = !('client' in options);
    if ('client' in options) this.current = options.client;
  }

  /** The client this provider reads from (once initialized). */
  get client(): ServiceClient {
    if (!this.current) throw new GeneralError('the provider is not initialized');
    return this.current;
  }

  /** Creates the client (its first sync) unless one was given; a bad key is fatal. */
  async initialize(): Promise<void> {
    if (!this.current) {
      try {
        this.current = await ServiceClient.create(this.options as ServiceConfig);
      } catch (error) {
        const cause = error instanceof ServiceInitError ? error.cause : error;
        if (cause instanceof ServiceUnauthorizedError || cause instanceof TypeError) {
          throw new ProviderFatalError(`the API key was refused: ${String(cause)}`, { cause });
        }
        throw error;
      }
    }
    const client = this.current;
    this.stops.push(
      client.onChange(({ changes }) => {
        const keys = changes.filter((c) => c.kind !== 'secret').map((c) => c.key);
        if (keys.length > 0) {
          this.events.emit(ProviderEvents.ConfigurationChanged, { flagsChanged: keys });
        }
      }),
      client.onStatusChange(() => this.followStatus()),
    );
    this.followStatus();
  }

  async onClose(): Promise<void> {
    for (const stop of this.stops.splice(0)) stop();
    if (this.owned) await this.current?.close();
  }

  async resolveBooleanEvaluation(
    key: string,
    _default: boolean,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<boolean>> {
    const client = this.client;
    const active = flagState(client, key);
    if (active === undefined) {
      // No flag of that key: a boolean config, as OFREP resolves it.
      return this.config(key, (v): v is boolean => typeof v === 'boolean', 'boolean');
    }
    if (!active)
      return { value: false, reason: StandardResolutionReasons.DISABLED, variant: 'off' };
    const userId = context.targetingKey;
    if (userId === undefined || userId === '' || Date.now() < this.abUnavailableUntil) {
      return { value: true, reason: StandardResolutionReasons.STATIC, variant: 'on' };
    }
    const { targetingKey: _, ...attributes } = context;
    try {
      const value = await this.users.evaluate(key, userId, attributes);
      return {
        value,
        reason: StandardResolutionReasons.TARGETING_MATCH,
        variant: value ? 'on' : 'off',
      };
    } catch (error) {
      if (
        error instanceof ServiceAbAddonNotAvailableError ||
        error instanceof ServiceBillingError
      ) {
        // Per-user evaluation is off for this project: the flag is its is_active, as OFREP says.
        this.abUnavailableUntil = Date.now() + AB_UNAVAILABLE_RETRY_MS;
        return { value: true, reason: StandardResolutionReasons.STATIC, variant: 'on' };
      }
      throw new GeneralError(`evaluate-ab failed: ${String(error)}`, { cause: error });
    }
  }

  async resolveStringEvaluation(key: string): Promise<ResolutionDetails<string>> {
    return this.config(key, (v): v is string => typeof v === 'string', 'string');
  }

  async resolveNumberEvaluation(key: string): Promise<ResolutionDetails<number>> {
    return this.config(key, (v): v is number => typeof v === 'number', 'number');
  }

  async resolveObjectEvaluation<T extends JsonValue>(key: string): Promise<ResolutionDetails<T>> {
    return this.config(key, (v): v is T => typeof v === 'object' && v !== null, 'object');
  }

  /** A config from the cache, checked against the type asked for. */
  private config<T>(key: string, is: (v: unknown) => v is T, type: string): ResolutionDetails<T> {
    const value = this.client.getConfig(key);
    if (value === undefined) {
      if (flagState(this.client, key) !== undefined) {
        throw new TypeMismatchError(`'${key}' is a flag (a boolean), not a ${type}`);
      }
      throw new FlagNotFoundError(`no flag or config '${key}' for this key`);
    }
    if (!is(value)) throw new TypeMismatchError(`config '${key}' is not a ${type}`);
    return { value, reason: StandardResolutionReasons.STATIC };
  }

  /**
   * The client's status as the provider's: an error with values in the cache is STALE (reads
   * still answer, perhaps out of date), a refused key is ERROR, anything else READY.
   */
  private followStatus(): void {
    const { ready, error } = this.client.getStatus();
    const next: Health =
      error === null
        ? 'ready'
        : error instanceof ServiceUnauthorizedError || !ready
          ? 'error'
          : 'stale';
    if (next === this.health) return;
    this.health = next;
    if (next === 'ready') this.events.emit(ProviderEvents.Ready);
    else if (next === 'stale') this.events.emit(ProviderEvents.Stale, { message: String(error) });
    else {
      this.events.emit(ProviderEvents.Error, {
        message: String(error),
        errorCode: ErrorCode.GENERAL,
      });
    }
  }
}

/** A flag's `is_active` from the cache, or undefined when there is no flag of that key. */
function flagState(client: ServiceClient, key: string): boolean | undefined {
  // null as the default tells an absent flag apart, without copying the cache.
  return client.getFlag(key, null as unknown as boolean) ?? undefined;
}
