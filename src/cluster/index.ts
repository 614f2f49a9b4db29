/**
 * What replicas share through Redis, as one module: app/start.ts loads it only when REDIS_URL is set,
 * so a single process never loads ioredis (a quarter of a megabyte of code to parse at start-up).
 */
export { connectRedis, waitUntilUp } from './redis.js';
export { RedisKeyStore } from './redis-keys.js';
export { EnvKeyLease } from './env-key-lease.js';
export { ClusterGuard } from './cluster-guard.js';
export { ClusterSync } from './cluster-sync.js';
export { clusterBudgetLimiter } from './cluster-budget.js';
