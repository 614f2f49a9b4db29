import { execFileSync } from 'node:child_process';
import { readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keysCommand } from '../../src/cli/keys-command.js';
import { openDatabase } from '../../src/data/db/open.js';
import { KeyRepository } from '../../src/data/repositories/keys.js';
import { hashApiKey } from '../../src/auth/api-key.js';
import { hold } from '../../src/data/db/holders.js';
import { privateDatabase } from '../helpers/server.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

/**
 * `npm run keys` in process (src/cli/keys-command.ts) against a copy of the run's database, on a
 * clock that stands still at CLOCK_START: what it prints, what it refuses and what it stores.
 * (test/keys-cli.test.ts runs the bundle in a process of its own, and against Redis.)
 */
const AT = '2027-01-15T12:00:00.000Z';
const USAGE_START = '\n\nnpm run keys -- <command>\n';
let file: string;
beforeEach(() => {
  file = privateDatabase('keys-command-');
});
afterEach(() => rmSync(path.dirname(file), { recursive: true, force: true }));

/** How many of this process's descriptors hold the database file (the command leaves none open). */
const descriptorsOf = (target: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === target;
    } catch {
      return false;
    }
  }).length;

async function keys(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await keysCommand({ argv, env: { DB_PATH: file, CLOCK_START: AT }, out: (l) => out.push(l), err: (t) => err.push(t), wallMs: () => 0 });
  return { status, out, err: err.join('\n') };
}
/** The keys as stored, read on a connection of the test's own. */
function stored<T>(read: (keys: KeyRepository) => T): T {
  const db = openDatabase(file);
  try {
    return read(new KeyRepository(db));
  } finally {
    db.close();
  }
}
const secretOf = (out: string[]) => /^\n {2}(szg_\S+)\n\nStore it now: it is not shown again\. Send it as the x-api-key header\.$/.exec(out.at(-1)!)![1]!;

describe('npm run keys', () => {
  it('create: prints the key once, stores its hash with the defaults, dated by the server’s clock', async () => {
    const made = await keys('create', '--name', 'me');
    expect([made.status, made.err, made.out.length]).toEqual([0, '', 2]);
    expect(made.out[0]).toBe('created key "me" (plan free, 10000 requests/month, 25/s)');
    const secret = secretOf(made.out);
    expect(stored((k) => k.findByHash(hashApiKey(secret)))).toEqual({
      id: 1,
      name: 'me',
      plan: 'free',
      keyHash: hashApiKey(secret),
      createdAt: AT,
      revokedAt: null,
      revokedBy: null,
      monthlyQuota: 10_000,
      ratePerSecond: 25,
      scopes: '',
      origin: 'cli',
      streams: null,
    });
  });

  it('create with every option; a scope named twice is one; a name in another normal form is the same name', async () => {
    const made = await keys(
      'create',
      '--name',
      're\u0301sume\u0301',
      '--plan',
      'pro',
      '--quota',
      '0',
      '--rate',
      '1000000',
      '--streams',
      '3',
      '--scope',
      'admin',
      '--scope',
      'admin',
    );
    expect(made.out[0]).toBe('created key "résumé" (plan pro, 0 requests/month, 1000000/s, 3 streams, scopes: admin)');
    expect(stored((k) => k.findByName('résumé'))).toMatchObject({ plan: 'pro', monthlyQuota: 0, ratePerSecond: 1_000_000, streams: 3, scopes: 'admin' });
    const again = await keys('create', '--name', 'résumé', '--quota', '1000000000000', '--streams', '1000000');
    expect([again.status, again.err]).toEqual([
      2,
      'A key named "résumé" exists already (id 1, created 2027-01-15T12:00:00.000Z). Choose another --name, or make a new key under this name with --replace (the old key is revoked).',
    ]);
  });

  it('create --replace: the old key revoked under a name of its own, the new one under the name', async () => {
    await keys('create', '--name', 'me');
    await keys('revoke', 'me');
    const taken = await keys('create', '--name', 'me');
    expect(taken.err).toBe(
      'A key named "me" exists already (id 1, created 2027-01-15T12:00:00.000Z, revoked 2027-01-15T12:00:00.000Z). Choose another --name, or make a new key under this name with --replace (the old key is revoked).',
    );
    const replaced = await keys('create', '--name', 'me', '--replace', '--plan', 'team');
    expect([replaced.status, replaced.out[0], replaced.out[1]]).toEqual([
      0,
      'revoked the earlier key "me" (id 1); it is listed as "me~replaced-1"',
      'created key "me" (plan team, 10000 requests/month, 25/s)',
    ]);
    expect(stored((k) => k.findByName('me'))).toMatchObject({ id: 2, keyHash: hashApiKey(secretOf(replaced.out)), revokedAt: null });
    // --replace of a name no key has makes a key, with nothing to revoke.
    const fresh = await keys('create', '--name', 'new', '--replace');
    expect(fresh.out[0]).toBe('created key "new" (plan free, 10000 requests/month, 25/s)');
  });

  it('two commands at once: the one that writes second changes nothing and says why', async () => {
    const both = await Promise.all([keys('create', '--name', 'x'), keys('create', '--name', 'x')]);
    expect(both.map((r) => [r.status, r.err])).toEqual([
      [0, ''],
      [2, 'Nothing was changed: another command made a key named "x" meanwhile; `npm run keys -- list` shows it (--replace makes a new one under the name).'],
    ]);
    const replaced = await Promise.all([keys('create', '--name', 'x', '--replace'), keys('create', '--name', 'x', '--replace')]);
    expect(replaced.map((r) => [r.status, r.err])).toEqual([
      [0, ''],
      [2, 'Nothing was changed: another command replaced or revoked the key named "x" (id 1) meanwhile; `npm run keys -- list` shows it.'],
    ]);
    await keys('create', '--name', 'y');
    const revoked = await Promise.all([keys('revoke', 'x', 'y'), keys('revoke', 'x', 'y')]);
    expect(revoked.map((r) => [r.status, r.err])).toEqual([
      [0, ''],
      [
        2,
        'Nothing was revoked:\n  key "x" (id 2) was revoked or replaced by another command meanwhile\n  key "y" (id 3) was revoked or replaced by another command meanwhile\n`npm run keys -- list` shows every key.',
      ],
    ]);
    expect(stored((k) => k.list('2027-01').map((r) => [r.id, r.name, r.revokedAt]))).toEqual([
      [1, 'x~replaced-1', AT],
      [2, 'x', AT],
      [3, 'y', AT],
    ]);
  });

  it('a replaced key’s name taken already: the name the store gave it is the one told', async () => {
    await keys('create', '--name', 'first');
    await keys('create', '--name', 'me');
    stored((k) => k.create({ name: 'me~replaced-2', plan: 'free', keyHash: 'h', createdAt: AT, monthlyQuota: 1, ratePerSecond: 1, scopes: '' }));
    const replaced = await keys('create', '--name', 'me', '--replace');
    expect(replaced.out[0]).toBe('revoked the earlier key "me" (id 2); it is listed as "me~replaced-2-2"');
  });

  it('leaves the database closed, done or refused', async () => {
    await keys('create', '--name', 'me');
    expect(descriptorsOf(file)).toBe(0);
    expect((await keys('create', '--name', 'me')).status).toBe(2);
    expect(descriptorsOf(file)).toBe(0);
  });

  it('a failure that is not a refusal is thrown, not told as one', async () => {
    stored(() => {
      const db = openDatabase(file);
      db.exec('DROP TABLE key_usage');
      db.close();
    });
    await expect(keys('list')).rejects.toThrow('no such table: key_usage');
  });

  it('a database that cannot be opened: why, in the system’s words', async () => {
    const blocked = path.join(path.dirname(file), 'gateway.sqlite', 'inner.sqlite');
    const errs: string[] = [];
    const status = await keysCommand({ argv: ['list'], env: { DB_PATH: blocked }, out: () => {}, err: (t) => void errs.push(t) });
    expect([status, errs]).toEqual([2, [`Cannot open the database ${blocked}: EEXIST: file already exists, mkdir '${path.dirname(blocked)}'`]]);
  });

  it('a database that needs building while a server holds it: refused, without the usage', async () => {
    const stale = path.join(path.dirname(file), 'stale.sqlite');
    writeFileSync(stale, 'not a database');
    const release = hold(stale, 'server', () => new Date(AT));
    try {
      const errs: string[] = [];
      const status = await keysCommand({ argv: ['list'], env: { DB_PATH: stale }, out: () => {}, err: (t) => void errs.push(t) });
      expect([status, errs]).toEqual([
        2,
        [
          `${stale} is served by process ${process.pid} (since ${AT}). Replacing the file now would leave the server on the old one, where keys created or revoked afterwards and the usage it counts are lost. Stop the server first (Ctrl-C, or kill -TERM ${process.pid}), run the command, then start the server again: the build carries keys and usage over. Or build another file (DB_PATH=other.sqlite npm run build:db) and start the server on it.`,
        ],
      ]);
    } finally {
      release();
    }
  });

  it('list: every key with its plan, usage, limits, state, scopes and origin', async () => {
    expect((await keys('list')).out).toEqual(['no keys']);
    stored((k) => {
      const key = (name: string, over = {}) => ({
        name,
        plan: 'free',
        keyHash: `h-${name}`,
        createdAt: AT,
        monthlyQuota: 100,
        ratePerSecond: 5,
        scopes: '',
        ...over,
      });
      k.create(key('cli'));
      k.create(key('first', { origin: 'first-key', scopes: 'admin', streams: 4, plan: 'p\u001b' }));
      k.syncEnvKeys([key('env')], AT);
      k.syncEnvKeys([], '2027-01-15T13:00:00.000Z');
      k.revoke([k.findByName('cli')!], '2027-01-15T14:00:00.000Z');
      k.addUsage([
        { keyId: 1, month: '2027-01', requests: 42 },
        { keyId: 2, month: '2026-12', requests: 7 },
      ]);
    });
    expect((await keys('list')).out).toEqual([
      `   1  cli                      free               42/100 this month  5/s  revoked 2027-01-15T14:00:00.000Z  created ${AT}`,
      `   2  first                    p\\u{1b}             0/100 this month  5/s  4 streams  active  scopes: admin  created ${AT}  made at first start`,
      `   3  env                      free                0/100 this month  5/s  retired 2027-01-15T13:00:00.000Z (no server's environment named it)  created ${AT}  from API_KEYS`,
    ]);
  });

  it('revoke by names or by ids, all or nothing; a key from API_KEYS is said to stay revoked', async () => {
    for (const name of ['a', 'b', 'c']) await keys('create', '--name', name);
    stored((k) => k.syncEnvKeys([{ name: 'env', plan: 'free', keyHash: 'h-env', createdAt: AT, monthlyQuota: 1, ratePerSecond: 1, scopes: '' }], AT));
    const none = await keys('revoke', 'a', 'nobody');
    expect([none.status, none.err]).toEqual([2, 'Nothing was revoked:\n  no key is named "nobody"\n`npm run keys -- list` shows every key.']);
    expect((await keys('revoke', 'nobody', 'noone')).err).toBe(
      'Nothing was revoked:\n  no key is named "nobody"\n  no key is named "noone"\n`npm run keys -- list` shows every key.',
    );
    expect(stored((k) => k.findByName('a')!.revokedAt)).toBeNull();
    const byName = await keys('revoke', 'a', 'env');
    expect([byName.status, byName.out]).toEqual([
      0,
      ['revoked key "a" (id 1)', 'revoked key "env" (id 4)', '  it comes from API_KEYS or API_ADMIN_KEYS: it stays revoked; remove it from there too'],
    ]);
    const byId = await keys('revoke', '--id', '2', '3');
    expect(byId.out).toEqual(['revoked key "b" (id 2)', 'revoked key "c" (id 3)']);
    expect(stored((k) => k.list('2027-01').map((r) => [r.name, r.revokedAt, r.revokedBy]))).toEqual([
      ['a', AT, 'operator'],
      ['b', AT, 'operator'],
      ['c', AT, 'operator'],
      ['env', AT, 'operator'],
    ]);
    expect((await keys('revoke')).err.startsWith(`revoke needs one or more key names (or --id and key ids)${USAGE_START}`)).toBe(true);
    expect((await keys('revoke', '--id')).err.startsWith(`revoke --id needs one or more key ids${USAGE_START}`)).toBe(true);
  });

  it('refuses what a command does not take, before it opens anything', async () => {
    const refused = async (...argv: string[]) => {
      const r = await keys(...argv);
      expect(r.status).toBe(2);
      expect(r.out).toEqual([]);
      return r.err;
    };
    const withUsage = (first: string) => (text: string) => {
      expect(text.startsWith(`${first}${USAGE_START}`), text).toBe(true);
      expect(text).toContain('Replicas keep their keys in Redis: run it with their REDIS_URL.');
    };
    withUsage('a command is needed')(await refused());
    withUsage('unknown command drop')(await refused('drop'));
    withUsage('list does not take --name, --plan')(await refused('list', '--name', 'x', '--plan', 'y'));
    withUsage('revoke does not take --scope')(await refused('revoke', 'x', '--scope', 'admin'));
    withUsage('list takes no arguments besides its options; it was also given "extra"')(await refused('list', 'extra'));
    withUsage('create takes no arguments besides its options; it was also given "app" "two" (a name with spaces goes in quotes: --name "my app")')(
      await refused('create', '--name', 'my', 'app', 'two'),
    );
    withUsage('--name, --rate given more than once')(
      await refused('create', '--name', 'x', '--name', 'y', '--rate', '1', '--rate', '2', '--scope', 'admin', '--scope', 'admin'),
    );
    withUsage(
      "Unknown option '--bogus'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--bogus\"",
    )(await refused('list', '--bogus'));
    withUsage('create needs --name')(await refused('create'));
    withUsage('create needs --name')(await refused('create', '--name', ''));
    withUsage('--name must be at most 100 characters; it has 101')(await refused('create', '--name', 'x'.repeat(101)));
    expect((await refused('create', '--name', 'ok', '--plan', 'a\tb')).split('\n')[0]).toMatch(/^--plan may hold visible, printable characters only/);
    const bounds = (option: string, min: number, max: number, given: string) =>
      `${option} must be a whole number from ${min} to ${max}, written in digits; it was "${given}"`;
    withUsage(bounds('--quota', 0, 1_000_000_000_000, '-1'))(await refused('create', '--name', 'x', '--quota=-1'));
    withUsage(bounds('--quota', 0, 1_000_000_000_000, '1e3'))(await refused('create', '--name', 'x', '--quota', '1e3'));
    withUsage(bounds('--quota', 0, 1_000_000_000_000, '1000000000001'))(await refused('create', '--name', 'x', '--quota', '1000000000001'));
    withUsage(bounds('--quota', 0, 1_000_000_000_000, '12345678901234567'))(await refused('create', '--name', 'x', '--quota', '12345678901234567'));
    withUsage(bounds('--rate', 1, 1_000_000, '0'))(await refused('create', '--name', 'x', '--rate', '0'));
    withUsage(bounds('--rate', 1, 1_000_000, '1000001'))(await refused('create', '--name', 'x', '--rate', '1000001'));
    withUsage(bounds('--rate', 1, 1_000_000, ' 5'))(await refused('create', '--name', 'x', '--rate', ' 5'));
    withUsage(bounds('--streams', 1, 1_000_000, '0'))(await refused('create', '--name', 'x', '--streams', '0'));
    withUsage(bounds('--streams', 1, 1_000_000, '1000001'))(await refused('create', '--name', 'x', '--streams', '1000001'));
    withUsage('unknown scope read; known: admin')(await refused('create', '--name', 'x', '--scope', 'read'));
    // What an argument brought in is escaped.
    withUsage('unknown command \\u{1b}[31m')(await refused('\u001b[31m'));
    expect(stored((k) => k.count())).toBe(0);
  });

  it('refuses a bad environment, and a replica’s database, without the usage', async () => {
    const errs: string[] = [];
    const status = await keysCommand({ argv: ['list'], env: { DB_PATH: '' }, out: () => {}, err: (t) => void errs.push(t) });
    expect([status, errs]).toEqual([2, ['Invalid environment:\nDB_PATH: Too small: expected string to have >=1 characters']]);
    stored((k) => k.setKeyStore('redis'));
    const replica = await keys('list');
    expect([replica.status, replica.err]).toEqual([
      2,
      `${file} belongs to a replica: its server keeps keys in Redis (REDIS_URL), where every replica checks them, so a key made or revoked here would not count. Run the command with the replicas' REDIS_URL set.`,
    ]);
  });

  it('a store that refuses a write: its code, and nothing changed', async () => {
    stored(() => {
      const db = openDatabase(file);
      db.exec("CREATE TRIGGER no_keys BEFORE INSERT ON api_keys BEGIN SELECT raise(ABORT, 'no'); END");
      db.close();
    });
    const refused = await keys('create', '--name', 'me');
    expect([refused.status, refused.err, refused.out]).toEqual([
      2,
      'Could not create the key: the database refused it (SQLITE_CONSTRAINT_TRIGGER); nothing was changed.',
      [],
    ]);
  });
});

describe('npm run keys with REDIS_URL (a replica’s keys)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  it('makes and lists keys in Redis, none in the file', async () => {
    const run = async (...argv: string[]) => {
      const out: string[] = [];
      const status = await keysCommand({
        argv,
        env: { DB_PATH: file, CLOCK_START: AT, REDIS_URL: redis.url },
        out: (l) => out.push(l),
        err: () => {},
        wallMs: () => 0,
      });
      return { status, out };
    };
    const made = await run('create', '--name', 'shared');
    expect([made.status, made.out[0]]).toEqual([0, 'created key "shared" (plan free, 10000 requests/month, 25/s)']);
    const listed = await run('list');
    expect(listed.out).toHaveLength(1);
    expect(listed.out[0]).toMatch(/^ {3}\d+ {2}shared {18} free {9} {7}0\/10000 this month {2}25\/s {2}active {2}created 2027-01-15T12:00:00\.000Z$/);
    expect(stored((k) => k.count())).toBe(0);
  });

  it('a Redis that refuses a write: its error code, and where to look', async () => {
    const config = (value: string) => execFileSync('redis-cli', [...redis.cliArgs, 'CONFIG', 'SET', 'maxmemory', value]);
    config('1');
    try {
      const told = async (...argv: string[]) => {
        const err: string[] = [];
        const status = await keysCommand({ argv, env: { DB_PATH: file, REDIS_URL: redis.url }, out: () => {}, err: (t) => void err.push(t) });
        return [status, ...err];
      };
      const look = '`npm run keys -- list` shows what it holds.';
      // Out of memory, it still reads and refuses to write.
      expect(await told('create', '--name', 'full')).toEqual([2, `Could not create the key: Redis refused it (OOM); ${look}`]);
      expect(await told('revoke', 'shared')).toEqual([2, `Could not revoke the keys: Redis refused it (OOM); ${look}`]);
    } finally {
      config('0');
    }
  });
});
