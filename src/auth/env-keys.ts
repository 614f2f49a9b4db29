import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { EnvKeySync, NewKey } from '../data/repositories/keys.js';
import { hashApiKey } from './api-key.js';
import { shownName } from './key-name.js';

/** Where keys live: SQLite (KeyRepository), or Redis for replicas (EnvKeyLease over RedisKeyStore). */
interface EnvKeyStore {
  /** Stores each as a key of origin 'env' (the store stamps it), and retires those no server names any more. */
  syncEnvKeys(keys: readonly NewKey[], at: string): EnvKeySync | Promise<EnvKeySync>;
}

/**
 * Keys from API_KEYS and API_ADMIN_KEYS live while the environment names them: added at start,
 * their limits and scopes following the environment (a key in API_ADMIN_KEYS, or in both lists,
 * is an admin), and retired (revoked) at a start once no server's environment names them (with
 * replicas: no live replica's). Keys made with `npm run keys` are never touched, and a key of the
 * environment an operator revoked with it stays revoked: the log says so at each start.
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
  const { retired, revokedByOperator } = await keys.syncEnvKeys(named, now().toISOString());
  if (retired > 0)
    logger.info(
      { retired },
      `${retired} key${retired === 1 ? '' : 's'} from an earlier API_KEYS or API_ADMIN_KEYS retired: no server's environment names ${retired === 1 ? 'it' : 'them'} any more`,
    );
  if (revokedByOperator.length > 0)
    logger.warn(
      { keys: revokedByOperator },
      `API_KEYS or API_ADMIN_KEYS names ${revokedByOperator.map((k) => `key ${shownName(k.name)} (id ${k.id})`).join(', ')}, revoked with npm run keys: ` +
        `it stays revoked; remove it from the environment`,
    );
}
