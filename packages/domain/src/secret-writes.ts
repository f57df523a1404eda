/**
 * The secret write API of `/v1/secrets` for API keys: writes land in the key's service scope,
 * else project scope, through the same versioning rules as the console.
 */
import { BillingOverdueError, PublicKeyForbiddenError, RateLimitedError } from './errors.ts';
import type { Change, Scope } from './model.ts';
import type { SecretSealer, Store } from './ports.ts';
import { deleteSecret, deleteSecretVersion, setSecret, type SetSecretResult } from './secrets.ts';
import type { Principal, ReadModel } from './views/read-model.ts';

/** The secret write limit per API key: `max` writes per `windowSeconds`. */
export interface WriteRateLimitOptions {
  max: number;
  windowSeconds: number;
  /** The budget's name, apart from others on the same counters (default `secret-writes`). */
  name?: string;
}

/** Write rate limit per API key; the adapter may share counters across instances. */
export interface WriteRateLimiter {
  /** Takes one write from the key's budget; `retryAfterSeconds` when none is left. */
  consume(
    keyId: string,
  ): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
}

export interface SecretWritesDeps {
  store: Store;
  /** This instance's read model: a write answers once it has applied the change. */
  model: Pick<ReadModel, 'waitUntilApplied'>;
  sealer: SecretSealer;
  limiter: WriteRateLimiter;
  /** Called after each committed write (e.g. to wake the change feed at once). */
  afterWrite?: (change: Change) => void;
  /**
   * How long a write waits for this instance's read model to apply it before it answers
   * (read-your-writes; default 2000 ms). Past it the write still succeeded: it answers anyway.
   */
  applyTimeoutMs?: number;
  /** Told of a write answered before it was applied here (the wait above ran out). */
  onApplyTimeout?: (change: Change, timeoutMs: number) => void;
}

/** What every secret write answers with: the project's revision after the change. */
export interface SecretWritten {
  revision: number;
}

const DEFAULT_APPLY_TIMEOUT_MS = 2000;

export class SecretWrites {
  constructor(private readonly deps: SecretWritesDeps) {}

  async set(
    principal: Principal,
    key: string,
    input: { value: string; expectedVersion?: number },
  ): Promise<SetSecretResult & SecretWritten> {
    return this.write(principal, key, 'secret.put', (tx, scope) =>
      setSecret(tx, this.deps.sealer, scope, {
        key,
        value: input.value,
        type: 'text',
        expectedVersion: input.expectedVersion,
      }),
    );
  }

  async delete(principal: Principal, key: string): Promise<SecretWritten> {
    return this.write(principal, key, 'secret.delete', async (tx, scope) => {
      const change = await deleteSecret(tx, scope, key);
      return { change };
    });
  }

  async deleteVersion(principal: Principal, key: string, version: number): Promise<SecretWritten> {
    return this.write(
      principal,
      `${key}@${version}`,
      'secret.delete_version',
      async (tx, scope) => {
        const change = await deleteSecretVersion(tx, scope, key, version);
        return { change };
      },
    );
  }

  /**
   * The checks before any write, and before its body is read: 403 public key, 402 billing (no
   * budget is taken). The caller has authenticated the key (401) already.
   */
  authorize(principal: Principal): void {
    if (principal.key.kind !== 'secret') throw new PublicKeyForbiddenError();
    if (principal.workspace.billingStatus === 'overdue') throw new BillingOverdueError();
  }

  /**
   * Order of checks: 403 public key, 402 billing, 429 rate limit; only then the write itself
   * (400, 404, 409, 413 from the versioning rules). Answers once this instance's read model has
   * applied the change (or the wait for it ran out).
   */
  private async write<T extends { change: Change }>(
    principal: Principal,
    target: string,
    action: string,
    fn: (tx: Parameters<Parameters<Store['transaction']>[0]>[0], scope: Scope) => Promise<T>,
  ): Promise<T & SecretWritten> {
    this.authorize(principal);
    const budget = await this.deps.limiter.consume(principal.key.id);
    if (!budget.allowed) throw new RateLimitedError(budget.retryAfterSeconds);
    const scope = scopeOf(principal);
    const result = await this.deps.store.transaction(async (tx) => {
      const r = await fn(tx, scope);
      await tx.appendAudit({
        workspaceId: principal.workspace.id,
        actor: `api-key:${principal.key.prefix}`,
        action,
        target: `${principal.project.slug} ${target}`,
      });
      return r;
    });
    const { change } = result;
    this.deps.afterWrite?.(change);
    const timeoutMs = this.deps.applyTimeoutMs ?? DEFAULT_APPLY_TIMEOUT_MS;
    if (!(await this.deps.model.waitUntilApplied(change.seq, timeoutMs))) {
      this.deps.onApplyTimeout?.(change, timeoutMs);
    }
    return { ...result, revision: change.revision ?? 0 };
  }
}

function scopeOf(principal: Principal): Scope {
  return { projectId: principal.project.id, serviceId: principal.key.serviceId };
}
