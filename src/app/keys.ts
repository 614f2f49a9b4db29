import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { AuthGuard } from '../auth/guard.js';
import { UsageCounter } from '../auth/usage-counter.js';
import { registerEnvKeys } from '../auth/env-keys.js';
import { hashApiKey } from '../auth/api-key.js';
import { ensureFirstKey, showOnTerminalAndInFile } from '../auth/first-key.js';
import { KeyRepository } from '../data/repositories/keys.js';
import type { Lifecycle } from './lifecycle.js';
import type { Replicas } from './replicas.js';
import type { Storage } from './storage.js';

/**
 * API keys: those the environment names registered, a first admin key made when there is none,
 * and the guard every request's key is checked by (with replicas, against the keys in Redis).
 */
export async function startKeys(config: Config, logger: Logger, now: () => Date, storage: Storage, replicas: Replicas | null, life: Lifecycle) {
  const { repos } = storage;
  // The keys command reads where this database's keys live: a replica's are in Redis, not here.
  repos.keys.setKeyStore(replicas ? 'redis' : 'sqlite');
  // Redis down at start: this replica's keys are registered there once it is back ('ready' below).
  const stores = replicas?.redis.up() ? { env: replicas.envKeys, keys: replicas.keys } : { env: repos.keys, keys: repos.keys };
  await registerEnvKeys(stores.env, config, now, logger);
  await ensureFirstKey(stores.keys, config, logger, now, showOnTerminalAndInFile(config.dbPath));
  // Keys from the environment are there again after Redis comes back (even one without persistence).
  replicas?.redis.cmd.on('ready', () =>
    registerEnvKeys(replicas.envKeys, config, now, logger)
      .then(() => knowOwnKeys())
      .catch((err) =>
        logger.warn(
          { err },
          'the keys of API_KEYS and API_ADMIN_KEYS could not be registered again in Redis after it came back: those it lost are refused (401) until Redis reconnects or this replica restarts',
        ),
      ),
  );
  if (!config.auth) logger.warn('AUTH=off: API keys are NOT checked. Never run like this outside local development.');

  // Key lookups and usage writes share the background connection: its own usage writes do not
  // move its data_version, so the key cache is dropped only when someone else writes (a revocation).
  const keys = new KeyRepository(storage.backgroundDb);
  const usage = new UsageCounter(keys);
  life.onClose('keys', () => usage.close());
  // Requests answered while Redis was away are kept in the database from a stop to the next start,
  // until Redis has them.
  const cluster = replicas ? new replicas.cluster.ClusterGuard(replicas.keys, now, config.auth, logger, () => repos.keys.keepUnsentUsage([])) : null;
  if (replicas && cluster) {
    cluster.resume(repos.keys.unsentUsage());
    replicas.redis.cmd.on('ready', () => void cluster.countOffline());
    if (replicas.redis.up()) void cluster.countOffline();
    life.onClose('keys', () => {
      const unsent = cluster.unsent();
      repos.keys.keepUnsentUsage(unsent);
      if (unsent.length > 0)
        logger.warn({ keys: unsent.length }, 'requests answered while redis was away are kept in the database, to be added to redis after the next start');
    });
  }
  // A replica serves its own keys while Redis is away, used here before or not.
  const ownKeys = [...new Set([...config.apiKeys, ...config.apiAdminKeys])].map(hashApiKey);
  const knowOwnKeys = () => cluster?.know(ownKeys);
  if (replicas?.redis.up()) await knowOwnKeys();
  const guard = cluster ?? new AuthGuard(keys, usage, now, config.auth);
  return { guard, usage };
}
