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
  new Database(file).exec(SCHEMA_SQL).close();
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
