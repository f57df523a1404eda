import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { WriteRateLimiter } from '@svc/domain';

/**
 * The secret write limit per API key (`WRITE_RATE_LIMIT_MAX` per `WRITE_RATE_LIMIT_WINDOW_S`),
 * over rate-limiter-flexible. In memory: each api process counts on its own.
 */
export function memoryWriteRateLimiter(options: {
  max: number;
  windowSeconds: number;
}): WriteRateLimiter {
  const limiter = new RateLimiterMemory({
    points: options.max,
    duration: options.windowSeconds,
    keyPrefix: 'secret-writes',
  });
  return {
    async consume(keyId) {
      try {
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
