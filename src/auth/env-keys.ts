import type { Config } from '../config.js';
import type { KeyRepository } from '../repositories/keys.js';
import { hashApiKey } from './api-key.js';

/** Keys from API_KEYS (development and tests) are added at start; their limits follow the environment. */
export function registerEnvKeys(keys: KeyRepository, config: Config, now: () => Date): void {
  for (const key of config.apiKeys) {
    const hash = hashApiKey(key);
    keys.upsertLimits({
      name: `env-${hash.slice(0, 12)}`,
      plan: 'development',
      keyHash: hash,
      createdAt: now().toISOString(),
      monthlyQuota: config.apiKeysQuota,
      ratePerSecond: config.apiKeysRate,
    });
  }
}
