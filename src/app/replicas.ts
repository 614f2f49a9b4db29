import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { Lifecycle } from './lifecycle.js';

type ClusterModule = typeof import('../cluster/index.js');

/** What a replica shares with the others through Redis: the link, the keys kept there, and this replica's lease on its own. */
export interface Replicas {
  /** The cluster's classes (src/cluster/), loaded only for replicas. */
  cluster: ClusterModule;
  redis: ReturnType<ClusterModule['connectRedis']>;
  keys: InstanceType<ClusterModule['RedisKeyStore']>;
  /** API_KEYS are this replica's own: named under its REPLICA_ID while it lives (env-key-lease.ts). */
  envKeys: InstanceType<ClusterModule['EnvKeyLease']>;
  replicaId: string;
}

/**
 * Replicas share keys, quotas and sync through Redis (src/cluster); one process needs none of it,
 * and does not even load it: null without REDIS_URL.
 */
export async function connectReplicas(config: Config, logger: Logger, now: () => Date, life: Lifecycle): Promise<Replicas | null> {
  if (!config.redis) return null;
  const cluster = await import('../cluster/index.js');
  const redis = cluster.connectRedis(config.redis.target, logger);
  life.onClose('replicas', () => redis.close());
  const keys = new cluster.RedisKeyStore(redis);
  const envKeys = new cluster.EnvKeyLease(keys, redis, config.redis.replicaId, now, logger);
  life.onClose('replicas', () => envKeys.stop());
  if (!(await cluster.waitUntilUp(redis, 3000))) logger.warn('redis is unreachable at start; serving with local data until it is back');
  return { cluster, redis, keys, envKeys, replicaId: config.redis.replicaId };
}
