import RateLimiterRedis from 'rate-limiter-flexible/lib/RateLimiterRedis.js';
import { RateLimiterMemory, type RateLimiterAbstract } from '../lib/rate-limiter.js';
import { PREFIX, type RedisLink } from './redis.js';

/**
 * Cost budgets for replicas: each key's budget is one counter in Redis (rate-limiter-flexible's
 * Redis limiter: an atomic increment in a window that starts with the key's first charge), so
 * three replicas give a heavy client one budget, not three. While Redis is unreachable each
 * replica counts in memory instead (the limiter's insurance), as the key check does: a key can
 * then spend up to one budget per replica until Redis is back.
 */
export function clusterBudgetLimiter(link: RedisLink): (points: number, duration: number) => RateLimiterAbstract {
  return (points, duration) =>
    new RateLimiterRedis({
      storeClient: link.cmd,
      points,
      duration,
      keyPrefix: `${PREFIX}cost:${points}:${duration}`,
      // Commands are not queued while Redis is down (redis.ts): go to the insurance at once.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ points, duration, keyPrefix: `cost${points}` }),
    }) as unknown as RateLimiterAbstract;
}
