import Database from 'better-sqlite3';

export type Db = Database.Database;

export interface OpenOptions {
  /** Called with every statement executed; only tests set it (it costs a string per statement). */
  onStatement?: (sql?: unknown) => void;
  /**
   * The connection that serves requests. (A memory map saved little per ZIP lookup but put the
   * whole file in the process's resident memory, which mattered more.)
   */
  serving?: boolean;
}

/** Opens the built database for serving: WAL so readers never block the (future) sync writer. */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  const db = new Database(file, { fileMustExist: true, verbose: options.onStatement });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Small page caches (serving, and the background writer) instead of SQLite's default: what
  // requests read often is held in memory above SQLite (ZIPs, states, snapshots), and the default
  // caches filled up while the server warmed, for no measurable speed (BENCHMARKS.md, design figures: SQLite caches).
  db.pragma(`cache_size = ${options.serving ? -256 : -1024}`);
  return db;
}
