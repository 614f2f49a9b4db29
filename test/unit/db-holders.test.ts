import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseInUseError, hold, holdersOf, isAlive, type Holder } from '../../src/data/db/holders.js';
import { testDir } from '../helpers/server.js';

/** The files beside a database that say which processes hold it (data/db/holders.ts), in a directory of the test's own. */
const AT = '2027-01-15T12:00:00.000Z';
/** A process id no process has (above Linux's pid_max). */
const GONE = 2 ** 23;
let dir: string;
let file: string;
beforeEach(() => {
  dir = testDir('db-holders-');
  file = path.join(dir, 'gateway.sqlite');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const marks = () => readdirSync(dir).sort();
const writeHolder = (name: string, holder: Partial<Holder>) =>
  writeFileSync(path.join(dir, `gateway.sqlite.holder-${name}`), JSON.stringify({ role: 'server', pid: GONE, host: hostname(), since: AT, ...holder }));

describe('holders of a database file', () => {
  it('a hold is a file beside the database until released, once', () => {
    expect(holdersOf(file)).toEqual([]);
    const release = hold(file, 'server', () => new Date(AT));
    const [mark] = marks();
    expect(mark).toMatch(new RegExp(`^gateway\\.sqlite\\.holder-server-${process.pid}-\\d+$`));
    const holder = { role: 'server', pid: process.pid, host: hostname(), since: AT };
    expect(JSON.parse(readFileSync(path.join(dir, mark!), 'utf8'))).toEqual(holder);
    expect(holdersOf(file)).toEqual([holder]);
    const build = hold(file, 'build', () => new Date(AT));
    expect(
      holdersOf(file)
        .map((h) => h.role)
        .sort(),
    ).toEqual(['build', 'server']);
    release();
    expect(holdersOf(file).map((h) => h.role)).toEqual(['build']);
    // Released twice: the second does nothing (not even to a file of the same name made since).
    writeFileSync(path.join(dir, mark!), 'kept');
    release();
    expect(existsSync(path.join(dir, mark!))).toBe(true);
    build();
    expect(holdersOf(file)).toEqual([]);
  });

  it('a dead process’s hold, or one of this process’s id it did not write, is removed; another host’s is believed; what is not a holder is skipped', () => {
    writeHolder('server-dead', { pid: GONE });
    writeHolder('server-reused', { pid: process.pid });
    writeHolder('server-remote', { pid: GONE, host: 'elsewhere' });
    writeHolder('server-parent', { pid: process.ppid });
    writeFileSync(path.join(dir, 'gateway.sqlite.holder-garbage'), '{');
    writeFileSync(path.join(dir, 'other.sqlite.holder-server-1-1'), JSON.stringify({ role: 'server', pid: GONE, host: hostname(), since: AT }));
    expect(holdersOf(file).sort((a, b) => a.pid - b.pid)).toEqual([
      { role: 'server', pid: process.ppid, host: hostname(), since: AT },
      { role: 'server', pid: GONE, host: 'elsewhere', since: AT },
    ]);
    expect(marks()).toEqual([
      'gateway.sqlite.holder-garbage',
      'gateway.sqlite.holder-server-parent',
      'gateway.sqlite.holder-server-remote',
      'other.sqlite.holder-server-1-1',
    ]);
    expect(holdersOf(path.join(dir, 'missing', 'gateway.sqlite'))).toEqual([]);
  });

  it('whether a process runs: another live one does; this one, a gone one and no id do not', () => {
    expect(isAlive(process.ppid)).toBe(true);
    expect([isAlive(process.pid), isAlive(GONE), isAlive(0), isAlive(-1), isAlive(1.5), isAlive(Number.NaN)]).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('says who holds it: a build to wait for, or a server to stop first', () => {
    const build = new DatabaseInUseError(file, [{ role: 'build', pid: 7, host: hostname(), since: AT }]);
    expect(build.message).toBe(`${file} is being rebuilt by process 7 (since ${AT}): start the server when the build has finished.`);
    expect(build.file).toBe(file);
    const servers = new DatabaseInUseError(file, [
      { role: 'server', pid: 7, host: hostname(), since: AT },
      { role: 'server', pid: 8, host: 'elsewhere', since: AT },
    ]);
    expect(servers.message).toBe(
      `${file} is served by process 7 (since ${AT}), process 8 on elsewhere (since ${AT}). Replacing the file now would leave the server on the old one, where keys created or revoked afterwards and the usage it counts are lost. Stop the server first (Ctrl-C, or kill -TERM 7), run the command, then start the server again: the build carries keys and usage over. Or build another file (DB_PATH=other.sqlite npm run build:db) and start the server on it.`,
    );
  });
});
