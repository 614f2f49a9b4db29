import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { NewKey } from '../repositories/keys.js';

/** Where keys live (SQLite, or Redis for replicas, which also lets only one replica make the first). */
interface FirstKeyStore {
  count(): number | Promise<number>;
  create(key: NewKey): boolean | Promise<boolean>;
  /** Replicas: whether this replica may make the first key (only one of them may). */
  claimFirstKey?(): Promise<boolean>;
}
import { generateApiKey, hashApiKey } from './api-key.js';

/**
 * The first hour: a server started on a database without any key makes one (with the admin
 * scope) and prints it once, the way a freshly installed service prints its first admin token;
 * only its hash is stored. A server that has keys says how many, and how to make another.
 */
export async function ensureFirstKey(keys: FirstKeyStore, config: Config, logger: Logger, now: () => Date): Promise<void> {
  if (!config.auth) return;
  const count = await keys.count();
  if (count > 0) {
    logger.info({ keys: count }, `${count} API key${count === 1 ? '' : 's'} on file; create another with: npm run keys -- create --name NAME`);
    return;
  }
  if (keys.claimFirstKey && !(await keys.claimFirstKey())) return;
  const key = generateApiKey();
  await keys.create({
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
