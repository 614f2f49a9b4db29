import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { SetupError } from '../../lib/errors.js';

/** A process that holds a database file: a server while it serves it, a build while it writes its replacement. */
export interface Holder {
  role: 'server' | 'build';
  pid: number;
  host: string;
  since: string;
}

/**
 * Why a command that would replace the database file refuses: a server holds it. A rebuild renames
 * a new file into place; a server that has the old one open goes on reading it, deleted, so keys
 * created or revoked afterwards, and the usage it counts, never meet.
 */
export class DatabaseInUseError extends SetupError {
  constructor(
    readonly file: string,
    readonly holders: Holder[],
  ) {
    const who = holders.map((h) => `process ${h.pid}${h.host === hostname() ? '' : ` on ${h.host}`} (since ${h.since})`).join(', ');
    super(
      holders[0]!.role === 'build'
        ? `${file} is being rebuilt by ${who}: start the server when the build has finished.`
        : `${file} is served by ${who}. Replacing the file now would leave the server on the old one, where keys ` +
            `created or revoked afterwards and the usage it counts are lost. Stop the server first (Ctrl-C, or ` +
            `kill -TERM ${holders[0]!.pid}), run the command, then start the server again: the build carries keys ` +
            `and usage over. Or build another file (DB_PATH=other.sqlite npm run build:db) and start the server on it.`,
    );
  }
}

const MARK = '.holder-';

/** The holder files beside a database: `<file>.holder-<role>-<pid>-<n>`, each a JSON Holder. */
function holderFiles(file: string): string[] {
  const dir = path.dirname(path.resolve(file));
  if (!existsSync(dir)) return [];
  const prefix = `${path.basename(file)}${MARK}`;
  return readdirSync(dir)
    .filter((name) => name.startsWith(prefix))
    .map((name) => path.join(dir, name));
}

/** This process's holder files, removed when it exits without releasing them (an uncaught error). */
const held = new Set<string>();

/**
 * The processes holding a database now (servers in this process too: a test's). A holder file
 * whose process has died (a server killed with SIGKILL) is removed, and so is one of this
 * process's id that this process did not write: a killed server's, whose id came round again (a
 * container's server restarted as the same pid). One written on another host is taken as alive,
 * since its process cannot be asked (its message says so).
 */
export function holdersOf(file: string): Holder[] {
  const out: Holder[] = [];
  for (const f of holderFiles(file)) {
    let holder: Holder;
    try {
      holder = JSON.parse(readFileSync(f, 'utf8')) as Holder;
    } catch {
      continue;
    }
    const dead = holder.pid === process.pid ? !held.has(f) : !isAlive(holder.pid);
    if (holder.host === hostname() && dead) {
      rmSync(f, { force: true });
      continue;
    }
    out.push(holder);
  }
  return out;
}
let count = 0;
let cleansAtExit = false;

/** Marks this process as a holder of the database until the returned release is called. */
export function hold(file: string, role: Holder['role'], now: () => Date = () => new Date()): () => void {
  const f = `${path.resolve(file)}${MARK}${role}-${process.pid}-${++count}`;
  const holder: Holder = { role, pid: process.pid, host: hostname(), since: now().toISOString() };
  writeFileSync(f, JSON.stringify(holder));
  if (!cleansAtExit) {
    cleansAtExit = true;
    process.once('exit', () => {
      for (const h of held) rmSync(h, { force: true });
    });
  }
  held.add(f);
  return () => {
    if (!held.delete(f)) return;
    rmSync(f, { force: true });
  };
}

/** Whether a process of this host is running (another one than this). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
