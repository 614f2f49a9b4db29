import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { NewKey } from '../data/repositories/keys.js';
import { hashApiKey } from './api-key.js';

/** Where keys live: SQLite (KeyRepository), or Redis for replicas (RedisKeyStore). */
interface EnvKeyStore {
  /** Stores each as a key of origin 'env' (the store stamps it), and retires those no longer named. */
  syncEnvKeys(keys: readonly NewKey[], at: string): number | Promise<number>;
}

/**
 * Keys from API_KEYS and API_ADMIN_KEYS live while the environment names them: added at start,
 * their limits and scopes following the environment (a key in API_ADMIN_KEYS, or in both lists,
 * is an admin), and retired (revoked) at a start whose environment no longer names them. Keys made
 * with `npm run keys` are never touched.
 */
export async function registerEnvKeys(keys: EnvKeyStore, config: Config, now: () => Date, logger: Logger): Promise<void> {
  const admins = new Set(config.apiAdminKeys);
  const named: NewKey[] = [...new Set([...config.apiKeys, ...config.apiAdminKeys])].map((key) => {
    const hash = hashApiKey(key);
    return {
      name: `env-${hash.slice(0, 12)}`,
      plan: 'development',
      keyHash: hash,
      createdAt: now().toISOString(),
      monthlyQuota: config.apiKeysQuota,
      ratePerSecond: config.apiKeysRate,
      scopes: admins.has(key) ? 'admin' : '',
    };
  });
  const retired = await keys.syncEnvKeys(named, now().toISOString());
  if (retired > 0)
    logger.info(
      { retired },
      `${retired} key${retired === 1 ? '' : 's'} from an earlier API_KEYS or API_ADMIN_KEYS retired: the environment no longer names ${retired === 1 ? 'it' : 'them'}`,
    );
}
