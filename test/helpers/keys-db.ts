import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../../src/data/db/open.js';
import { SCHEMA_SQL } from '../../src/data/db/schema-sql.js';

/** An empty database with the real schema in a temporary file (for unit tests of key code). */
export function emptyDatabase(prefix: string): { db: Db; file: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const file = path.join(dir, 'keys.sqlite');
  // One transaction: statement by statement, each table and index was a commit (and a sync) of its own.
  const setup = new Database(file);
  setup.transaction(() => setup.exec(SCHEMA_SQL))();
  setup.close();
  const db = openDatabase(file);
  return {
    db,
    file,
    remove: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
