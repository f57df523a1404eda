import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { WriteRateLimiter } from '@svc/domain';
import type { PostgresStore } from '@svc/storage-postgres';

export interface WriteRateLimitOptions {
  max: number;
  windowSeconds: number;
}

/**
 * The secret write limit per API key (`WRITE_RATE_LIMIT_MAX` per `WRITE_RATE_LIMIT_WINDOW_S`),
 * over rate-limiter-flexible. In memory: each api process counts on its own.
 */
export function memoryWriteRateLimiter(options: WriteRateLimitOptions): WriteRateLimiter {
  const limiter = new RateLimiterMemory({
    points: options.max,
    duration: options.windowSeconds,
    keyPrefix: 'secret-writes',
  });
  return fromRateLimiter(limiter, Promise.resolve());
}

/** The table of the shared counters (the limiter creates it; it is not part of the store's schema). */
export const RATE_LIMIT_TABLE = 'svc_rate_limits';

/**
 * The same limit, counted in the PostgreSQL database every api instance uses, so N instances
 * behind a load balancer allow `max` writes per key in total, not N × `max`. One upsert per
 * write, over the store's pool.
 */
export function postgresWriteRateLimiter(
  store: PostgresStore,
  options: WriteRateLimitOptions,
): WriteRateLimiter {
  let created: (error?: unknown) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    created = (error) => (error ? reject(error as Error) : resolve());
  });
  // Surfaces on the first write if the table could not be created; no unhandled rejection before.
  ready.catch(() => {});
  const limiter = new RateLimiterPostgres(
    {
      storeClient: store.pool,
      storeType: 'pool',
      tableName: RATE_LIMIT_TABLE,
      points: options.max,
      duration: options.windowSeconds,
      keyPrefix: 'secret-writes',
      // One row per key that ever wrote, reused by each window: nothing piles up to sweep.
      clearExpiredByTimeout: false,
    },
    created,
  );
  return fromRateLimiter(limiter, ready);
}

function fromRateLimiter(limiter: RateLimiterAbstract, ready: Promise<void>): WriteRateLimiter {
  return {
    async consume(keyId) {
      try {
        await ready;
        await limiter.consume(keyId);
        return { allowed: true };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return {
          allowed: false,
          retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
        };
      }
    },
  };
}
