import type { Config } from '../config.js';
import type { NewKey } from '../repositories/keys.js';
import { hashApiKey } from './api-key.js';

/**
 * Keys from API_KEYS and API_ADMIN_KEYS (development and tests) are added at start; their limits
 * and scopes follow the environment. A key in API_ADMIN_KEYS (or in both lists) is an admin.
 */
export async function registerEnvKeys(keys: { upsertLimits(key: NewKey): unknown }, config: Config, now: () => Date): Promise<void> {
  const admins = new Set(config.apiAdminKeys);
  for (const key of new Set([...config.apiKeys, ...config.apiAdminKeys])) {
    const hash = hashApiKey(key);
    await keys.upsertLimits({
      name: `env-${hash.slice(0, 12)}`,
      plan: 'development',
      keyHash: hash,
      createdAt: now().toISOString(),
      monthlyQuota: config.apiKeysQuota,
      ratePerSecond: config.apiKeysRate,
      scopes: admins.has(key) ? 'admin' : '',
    });
  }
}
