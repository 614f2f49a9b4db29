import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { NewKey } from '../data/repositories/keys.js';
import { generateApiKey, hashApiKey } from './api-key.js';

/** Where keys live (SQLite, or Redis for replicas, which also lets only one replica make the first). */
interface FirstKeyStore {
  count(): number | Promise<number>;
  create(key: NewKey): boolean | Promise<boolean>;
  /** Replicas: whether this replica may make the first key (only one of them may). */
  claimFirstKey?(): Promise<boolean>;
}

/**
 * How the first key reaches the person who started the server, whatever LOG_LEVEL says: on the
 * terminal (stderr, apart from the log) and in a file only its owner can read; returns that file's
 * path, which the log names (the key itself is never logged).
 */
export type ShowFirstKey = (key: string, text: string) => string;

/** The first key on stderr and in `first-api-key.txt` beside the database (mode 0600). */
export function showOnTerminalAndInFile(dbPath: string): ShowFirstKey {
  return (key, text) => {
    const file = path.join(path.dirname(path.resolve(dbPath)), 'first-api-key.txt');
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
    // A file left from an earlier database keeps its mode: set it.
    chmodSync(file, 0o600);
    process.stderr.write(`\n${text}\n(also written to ${file}, readable by its owner only)\n\n`);
    return file;
  };
}

/**
 * The first hour: a server started on a database without any key makes one (with the admin
 * scope) and shows it once, the way a freshly installed service prints its first admin token;
 * only its hash is stored. A server that has keys says how many, and how to make another.
 */
export async function ensureFirstKey(keys: FirstKeyStore, config: Config, logger: Logger, now: () => Date, show: ShowFirstKey): Promise<void> {
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
    origin: 'first-key',
  });
  const text =
    `No API key existed, so one was created (name "first-key", admin scope): ${key}\n` +
    'It is shown this once: store it, send it as the x-api-key header, and make more with: npm run keys -- create --name NAME';
  const file = show(key, text);
  logger.warn(
    { file },
    `No API key existed, so one was created (name "first-key", admin scope); it was printed on stderr and written to ${file} (readable by its owner only): store it, then delete the file`,
  );
}
