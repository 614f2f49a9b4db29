import Database from 'better-sqlite3';
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { KEY_STORE_META, PRESERVED_TABLES, SCHEMA_SQL, SCHEMA_VERSION } from './schema-sql.js';
import { populateZips } from './populate-zips.js';
import { populateResorts } from './populate-resorts.js';
import { sourceFingerprint } from './fingerprint.js';
import type { Db } from './open.js';
import type { BuildHooks } from './build-hooks.js';
import { forgetTimeZoneTiles } from './sources/time-zones.js';
import { writeZoneOffsets } from './zone-offsets.js';
import { DatabaseInUseError, hold, holdersOf, isAlive } from './holders.js';
import { withBuildLock } from './build-lock.js';

export type { BuildHooks } from './build-hooks.js';

/** Version of an existing database file, or null when it is missing or unreadable. */
export function databaseVersion(file: string): number | null {
  return readStamp(file)?.version ?? null;
}

function readStamp(file: string): { version: number; fingerprint: string | null } | null {
  if (!existsSync(file)) return null;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const version = db.pragma('user_version', { simple: true }) as number;
      const row = db.prepare("SELECT value FROM meta WHERE key = 'sources.fingerprint'").get() as { value: string } | undefined;
      return { version, fingerprint: row?.value ?? null };
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

/**
 * Builds the database when it is missing, of another schema version, or built from other
 * committed sources (the catalogue was edited). Returns whether it built.
 */
export function ensureDatabase(file: string, hooks: BuildHooks = {}): boolean {
  if (isCurrent(file)) {
    removeStaleTemporaries(file);
    return false;
  }
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  // One builder at a time; whoever waited finds it built (and built from what the first kept).
  return withBuildLock(file, () => {
    if (isCurrent(file)) return false;
    buildHeld(file, hooks);
    return true;
  });
}

function isCurrent(file: string): boolean {
  const stamp = readStamp(file);
  return stamp?.version === SCHEMA_VERSION && stamp.fingerprint === sourceFingerprint();
}

/**
 * Builds the whole database into a temporary file beside the target and renames it into place, so
 * a crash at any point leaves either the previous database or the new one, never half of one.
 * Refused (DatabaseInUseError) while a server holds the file: it would go on serving the old one.
 */
export function buildDatabase(file: string, hooks: BuildHooks = {}): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  withBuildLock(file, () => buildHeld(file, hooks));
}

/** buildDatabase, the build lock held by the caller. */
function buildHeld(file: string, hooks: BuildHooks): void {
  const servers = holdersOf(file).filter((h) => h.role === 'server');
  if (servers.length > 0) throw new DatabaseInUseError(file, servers);
  const release = hold(file, 'build');
  try {
    build(file, hooks);
  } finally {
    release();
  }
}

function build(file: string, hooks: BuildHooks): void {
  removeStaleTemporaries(file);
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  const db = new Database(tmp);
  try {
    // The temp file is thrown away on any failure, so durability knobs can be off while filling it.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(SCHEMA_SQL);
    populate(db, hooks);
    forgetTimeZoneTiles();
    carryOver(db, file);
    writeZoneOffsets(db);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
    db.exec('ANALYZE');
    db.close();
    fsyncFile(tmp);
    retireWal(file);
    renameSync(tmp, file);
  } catch (err) {
    if (db.open) db.close();
    rmSync(tmp, { force: true });
    throw err;
  }
}

function populate(db: Db, hooks: BuildHooks): void {
  db.transaction(() => {
    populateZips(db, hooks);
    populateResorts(db, hooks);
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('sources.fingerprint', sourceFingerprint());
  })();
}

/**
 * Copies from the previous database what a build cannot derive: keys, usage and sync runs, and
 * what `npm run import` added (imported resorts with their inventory, OpenSkiMap inventory that
 * replaced generated inventory, and the source mappings). Only columns both schemas have.
 */
function carryOver(db: Db, previous: string): void {
  if (!existsSync(previous)) return;
  db.prepare('ATTACH DATABASE ? AS old').run(previous);
  try {
    const shared = (table: string) => {
      const oldColumns = db.prepare("SELECT name FROM pragma_table_info(?, 'old')").pluck().all(table) as string[];
      const newColumns = new Set(db.prepare("SELECT name FROM pragma_table_info(?, 'main')").pluck().all(table) as string[]);
      return oldColumns
        .filter((c) => newColumns.has(c))
        .map((c) => `"${c}"`)
        .join(', ');
    };
    const copy = (table: string, where = '1', verb = 'INSERT') => {
      const cols = shared(table);
      if (cols) db.exec(`${verb} INTO main.${table} (${cols}) SELECT ${cols} FROM old.${table} WHERE ${where}`);
    };
    db.transaction(() => {
      for (const table of PRESERVED_TABLES) copy(table);
      // Keys of a schema before their origin was stored: those the environment and the first start
      // made had these names and plans.
      if (!shared('api_keys').includes('"origin"')) {
        db.exec(`UPDATE main.api_keys SET origin = 'env' WHERE name LIKE 'env-%' AND plan = 'development'`);
        db.exec(`UPDATE main.api_keys SET origin = 'first-key' WHERE name = 'first-key'`);
      }
      // Where the keys live (SQLite, or Redis for replicas): the keys command reads it.
      db.exec(`INSERT INTO main.meta (key, value) SELECT key, value FROM old.meta WHERE key = '${KEY_STORE_META}'`);
      if (!shared('resort_sources')) return;
      copy('resorts', "origin = 'imported'", 'INSERT OR IGNORE');
      // OpenSkiMap inventory replaces what the build generated for the same resorts.
      for (const table of ['trails', 'lifts']) {
        db.exec(`DELETE FROM main.${table} WHERE resort_id IN (SELECT resort_id FROM old.${table} WHERE source = 'openskimap')`);
        copy(table, `source = 'openskimap' OR resort_id IN (SELECT id FROM old.resorts WHERE origin = 'imported')`, 'INSERT OR IGNORE');
      }
      db.exec(`UPDATE main.resorts SET trail_count = o.trail_count, lift_count = o.lift_count, inventory_source = o.inventory_source
        FROM old.resorts o WHERE o.id = main.resorts.id AND o.inventory_source = 'openskimap'`);
      copy('resort_sources', 'resort_id IN (SELECT id FROM main.resorts)', 'INSERT OR IGNORE');
    })();
  } catch (err) {
    // A previous file that is not a database has nothing to carry over; anything else must stop
    // the build (the previous database stays in place) rather than lose keys or usage.
    const code = (err as { code?: string }).code;
    if (code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT') throw err;
  } finally {
    db.exec('DETACH DATABASE old');
  }
}

function fsyncFile(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * A -wal file left beside the target belongs to the old database; SQLite would replay it onto the
 * new one. Checkpoint it into the old file (harmless) and remove it before the rename.
 */
function retireWal(file: string): void {
  if (existsSync(file)) {
    try {
      const old = new Database(file);
      old.pragma('wal_checkpoint(TRUNCATE)');
      old.close();
    } catch {
      // An unreadable old database is being replaced anyway.
    }
  }
  rmSync(`${file}-wal`, { force: true });
  rmSync(`${file}-shm`, { force: true });
}

/** Temp files (and their journals) of builds whose process has died; a live builder keeps its own. */
function removeStaleTemporaries(file: string): void {
  const dir = path.dirname(path.resolve(file));
  if (!existsSync(dir)) return;
  const prefix = `${path.basename(file)}.tmp-`;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (!isAlive(pid)) rmSync(path.join(dir, name), { force: true });
  }
}
