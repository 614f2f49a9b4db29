import Database from 'better-sqlite3';

export type Db = Database.Database;

export interface OpenOptions {
  /** Called with every statement executed; only tests set it (it costs a string per statement). */
  onStatement?: (sql?: unknown) => void;
  /**
   * The connection that serves requests reads the file through a memory map, so a lookup makes no
   * read() system call (measured: 8.0 → 7.0 µs per ZIP lookup); the mapped pages are the OS's
   * page cache, shared, rather than a second copy in SQLite's own cache.
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
  if (options.serving) {
    db.pragma('mmap_size = 268435456');
  }
  return db;
}
