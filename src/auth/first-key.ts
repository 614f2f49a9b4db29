import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { KeyRepository } from '../repositories/keys.js';
import { generateApiKey, hashApiKey } from './api-key.js';

/**
 * The first hour: a server started on a database without any key makes one (with the admin
 * scope) and prints it once, the way a freshly installed service prints its first admin token;
 * only its hash is stored. A server that has keys says how many, and how to make another.
 */
export function ensureFirstKey(keys: KeyRepository, config: Config, logger: Logger, now: () => Date): void {
  if (!config.auth) return;
  const count = keys.count();
  if (count > 0) {
    logger.info({ keys: count }, `${count} API key${count === 1 ? '' : 's'} on file; create another with: npm run keys -- create --name NAME`);
    return;
  }
  const key = generateApiKey();
  keys.create({
    name: 'first-key',
    plan: 'free',
    keyHash: hashApiKey(key),
    createdAt: now().toISOString(),
    monthlyQuota: config.apiKeysQuota,
    ratePerSecond: config.apiKeysRate,
    scopes: 'admin',
  });
  logger.warn(
    { apiKey: key },
    `No API key existed, so one was created (name "first-key", admin scope): ${key} — it is shown this once; ` +
      'send it as the x-api-key header, and make more with: npm run keys -- create --name NAME',
  );
}
