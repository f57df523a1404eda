/**
 * The secret write limit per API key (`WRITE_RATE_LIMIT_MAX` per `WRITE_RATE_LIMIT_WINDOW_S`),
 * over rate-limiter-flexible. Each store offers one that fits it: in memory on SQLite (one api
 * process), in its own database on PostgreSQL (shared by every api instance).
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { WriteRateLimiter } from '@svc/domain';

/** The budget's name in the limiter: the same in memory and in the database. */
export const WRITE_RATE_LIMIT_PREFIX = 'secret-writes';

/**
 * The domain's port over a rate-limiter-flexible limiter. `ready` settles once the limiter can
 * count (a table to create first); its failure surfaces on each write, never unhandled.
 */
export function writeRateLimiter(
  limiter: RateLimiterAbstract,
  ready: Promise<void> = Promise.resolve(),
): WriteRateLimiter {
  ready.catch(() => {});
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
