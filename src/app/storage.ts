import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { ensureDatabase } from '../data/db/build.js';
import { DatabaseInUseError, hold, holdersOf } from '../data/db/holders.js';
import { openDatabase, type Db } from '../data/db/open.js';
import { createRepositories, type Repositories } from '../data/repositories/index.js';
import type { Lifecycle } from './lifecycle.js';

export interface Storage {
  /** The requests' connection. */
  db: Db;
  repos: Repositories;
  /**
   * Background writers' (usage counts, sync runs, key lookups): their statements never interleave
   * with a request's, and never count in a request's statement budget.
   */
  backgroundDb: Db;
  /** SQL statements the requests' connection executed (counted when config.countStatements is on). */
  statementCount(): number;
}

/** The SQLite database: built if it is missing or of another version, held while the server runs. */
export function openStorage(config: Config, logger: Logger, now: () => Date, life: Lifecycle): Storage {
  // A server never starts on a file a build is about to replace.
  const building = holdersOf(config.dbPath).filter((h) => h.role === 'build');
  if (building.length > 0) throw new DatabaseInUseError(config.dbPath, building);
  const started = performance.now();
  if (ensureDatabase(config.dbPath)) logger.info({ dbPath: config.dbPath, ms: Math.round(performance.now() - started) }, 'database built');
  // While it serves, no command replaces the file under it (db/holders.ts).
  const release = hold(config.dbPath, 'server', now);
  life.onClose('storage', release);
  let statements = 0;
  const db = openDatabase(config.dbPath, { serving: true, ...(config.countStatements ? { onStatement: () => void statements++ } : {}) });
  life.onClose('storage', () => db.close());
  const backgroundDb = openDatabase(config.dbPath);
  life.onClose('storage', () => backgroundDb.close());
  return { db, repos: createRepositories(db), backgroundDb, statementCount: () => statements };
}
