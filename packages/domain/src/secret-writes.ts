/**
 * The secret write API of `/v1/secrets` for API keys: writes land in the key's service scope,
 * else project scope, through the same versioning rules as the console.
 */
import { BillingOverdueError, PublicKeyForbiddenError, RateLimitedError } from './errors.ts';
import type { Change, Scope } from './model.ts';
import type { SecretSealer, Store } from './ports.ts';
import { deleteSecret, deleteSecretVersion, setSecret, type SetSecretResult } from './secrets.ts';
import type { Principal } from './views/read-model.ts';

/** The secret write limit per API key: `max` writes per `windowSeconds`. */
export interface WriteRateLimitOptions {
  max: number;
  windowSeconds: number;
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
  sealer: SecretSealer;
  limiter: WriteRateLimiter;
  /** Called after each committed write (e.g. to wake the change feed at once). */
  afterWrite?: (change: Change) => void;
}

export class SecretWrites {
  constructor(private readonly deps: SecretWritesDeps) {}

  async set(
    principal: Principal,
    key: string,
    input: { value: string; expectedVersion?: number },
  ): Promise<SetSecretResult> {
    return this.write(principal, key, 'secret.put', (tx, scope) =>
      setSecret(tx, this.deps.sealer, scope, {
        key,
        value: input.value,
        type: 'text',
        expectedVersion: input.expectedVersion,
      }),
    );
  }

  async delete(principal: Principal, key: string): Promise<void> {
    await this.write(principal, key, 'secret.delete', async (tx, scope) => {
      const change = await deleteSecret(tx, scope, key);
      return { change };
    });
  }

  async deleteVersion(principal: Principal, key: string, version: number): Promise<void> {
    await this.write(principal, `${key}@${version}`, 'secret.delete_version', async (tx, scope) => {
      const change = await deleteSecretVersion(tx, scope, key, version);
      return { change };
    });
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
   * (400, 404, 409, 413 from the versioning rules).
   */
  private async write<T extends { change: Change }>(
    principal: Principal,
    target: string,
    action: string,
    fn: (tx: Parameters<Parameters<Store['transaction']>[0]>[0], scope: Scope) => Promise<T>,
  ): Promise<T> {
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
    this.deps.afterWrite?.(result.change);
    return result;
  }
}

function scopeOf(principal: Principal): Scope {
  return { projectId: principal.project.id, serviceId: principal.key.serviceId };
}
