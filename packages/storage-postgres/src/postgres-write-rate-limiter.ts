/**
 * The secret write limit counted in the PostgreSQL database every api instance uses, so N
 * instances behind a load balancer allow `max` writes per key in total, not N × `max`. One
 * upsert per write, over the store's pool. A database out of reach refuses the write with
 * StorageUnavailableError (503), as the write itself would be.
 */
import type pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { WriteRateLimiter, WriteRateLimitOptions } from '@svc/domain';
import { WRITE_RATE_LIMIT_PREFIX, writeRateLimiter } from '@svc/storage-kysely';
import { asUnavailable } from './connection-loss.ts';

/** The table of the shared counters (the limiter creates it; it is not part of the store's schema). */
export const RATE_LIMIT_TABLE = 'svc_rate_limits';

export function postgresWriteRateLimiter(
  pool: pg.Pool,
  options: WriteRateLimitOptions,
): WriteRateLimiter {
  // The pool's queries, with a lost connection reported as the domain's StorageUnavailableError.
  const storeClient = {
    query: (query: pg.QueryConfig) =>
      pool.query(query).catch((e: unknown) => Promise.reject(asUnavailable(e))),
  };
  let current: WriteRateLimiter | undefined;
  const limiter = (): WriteRateLimiter => {
    if (current) return current;
    let created: (error?: unknown) => void = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      created = (error) => (error ? reject(error as Error) : resolve());
    });
    const made = writeRateLimiter(
      new RateLimiterPostgres(
        {
          storeClient,
          storeType: 'pool',
          tableName: RATE_LIMIT_TABLE,
          points: options.max,
          duration: options.windowSeconds,
          keyPrefix: options.name ?? WRITE_RATE_LIMIT_PREFIX,
          // One row per key that ever wrote, reused by each window: nothing piles up to sweep.
          clearExpiredByTimeout: false,
        },
        created,
      ),
      ready,
    );
    // Its table could not be made (the database was away): the next write tries again.
    ready.catch(() => {
      if (current === made) current = undefined;
    });
    return (current = made);
  };
  return { consume: (keyId) => limiter().consume(keyId) };
}
