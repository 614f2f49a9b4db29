import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateDatabase, testDir } from './helpers/server.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { cliCommand, runCommand } from './helpers/process.js';
import { haveRedis, startRedis, type TestRedis } from './helpers/redis.js';
import { KeyRepository } from '../src/data/repositories/keys.js';
import { openDatabase } from '../src/data/db/open.js';
import { RedisKeyStore } from '../src/cluster/redis-keys.js';
import { connectRedis, waitUntilUp } from '../src/cluster/redis.js';
import { createLogger } from '../src/lib/logger.js';

/**
 * `npm run keys` (the bundle of src/cli/keys.ts) does exactly what it is told, in each store the
 * keys live in: a server's SQLite file, and the Redis replicas share.
 */

type Run = (...args: string[]) => Promise<{ status: number | null; stdout: string; stderr: string }>;

/** The state `list` shows for each key, by name: its id, and active, revoked or retired. */
async function states(keys: Run): Promise<Record<string, { id: number; state: string }>> {
  const { stdout } = await keys('list');
  return Object.fromEntries(
    [...stdout.matchAll(/^\s*(\d+)\s+(\S+)\s.*?\s(active|revoked|retired)\s/gm)].map((m) => [m[2]!, { id: Number(m[1]), state: m[3]! }]),
  );
}

/** The same walk for either store: by name, by id, and nothing at all when one argument is wrong. */
async function revokesExactlyWhatItIsTold(keys: Run): Promise<void> {
  for (const name of ['alpha', '1', 'beta', 'gamma']) expect((await keys('create', '--name', name)).status).toBe(0);
  const ids = Object.fromEntries(Object.entries(await states(keys)).map(([name, k]) => [name, k.id]));
  expect(ids.alpha).toBe(1);

  // A name is a name: "1" revokes the key named "1", not the key whose id is 1.
  const byName = await keys('revoke', '1');
  expect(byName.status, byName.stderr).toBe(0);
  expect(byName.stdout).toBe(`revoked key "1" (id ${ids['1']})\n`);
  expect((await states(keys)).alpha!.state).toBe('active');

  // One unknown argument: the command fails, names it, and revokes nothing.
  const unknown = await keys('revoke', 'beta', 'no-such-key');
  expect(unknown.status).toBe(2);
  expect(unknown.stdout).toBe('');
  expect(unknown.stderr).toBe('Nothing was revoked:\n  no key is named "no-such-key"\n`npm run keys -- list` shows every key.\n');
  expect((await states(keys)).beta!.state).toBe('active');
  // A number given as a name is told where the id goes.
  const numberAsName = await keys('revoke', String(ids.gamma));
  expect(numberAsName.stderr).toContain(`no key is named "${ids.gamma}" (to revoke the key whose id is ${ids.gamma}: revoke --id ${ids.gamma})`);

  // By id, the same: one unknown id or one that is no id revokes none.
  for (const args of [
    ['--id', '1', '999'],
    ['--id', '1', 'beta'],
  ]) {
    const refused = await keys('revoke', ...args);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^Nothing was revoked:\n {2}(no key has id 999|--id takes key ids, the whole numbers `list` shows: "beta" is not one)\n/);
  }
  expect((await states(keys)).alpha!.state).toBe('active');
  const byId = await keys('revoke', '--id', '1', String(ids.beta));
  expect(byId.status, byId.stderr).toBe(0);
  expect(byId.stdout).toBe(`revoked key "alpha" (id 1)\nrevoked key "beta" (id ${ids.beta})\n`);

  // A key revoked already is not revoked again: the command says when it was, and revokes no other.
  const again = await keys('revoke', 'gamma', 'alpha');
  expect(again.status).toBe(2);
  expect(again.stderr).toMatch(/^Nothing was revoked:\n {2}key "alpha" \(id 1\) was revoked already, at \d{4}-/);
  const after = await states(keys);
  expect(Object.fromEntries(Object.entries(after).map(([name, k]) => [name, k.state]))).toEqual({
    alpha: 'revoked',
    1: 'revoked',
    beta: 'revoked',
    gamma: 'active',
  });
}

/** Names a terminal would act on, or that hide what they are, are refused with a sentence. */
async function refusesUnprintableNames(keys: Run): Promise<void> {
  for (const [name, shown] of [
    ['red\u001b[31malert', 'U+001B at character 4'],
    ['bell\u0007', 'U+0007 at character 5'],
    ['evil\u202ename', 'U+202E at character 5'],
    ['two\nlines', 'U+000A at character 4'],
  ] as const) {
    const r = await keys('create', '--name', name);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`--name may hold visible, printable characters only (letters, digits, punctuation, symbols and spaces); `);
    expect(r.stderr).toContain(shown);
    // The name is shown escaped, never raw.
    expect(r.stderr).not.toContain(name);
  }
  expect((await keys('create', '--name', 'Zermatt café ⛷ (team 2)')).status).toBe(0);
}

/** Given what it does not take, a command fails naming it, and changes nothing. */
async function takesOnlyItsOwnArguments(keys: Run): Promise<void> {
  const split = await keys('create', '--name', 'my', 'app');
  expect(split.status).toBe(2);
  expect(split.stderr).toMatch(
    /^create takes no arguments besides its options; it was also given "app" \(a name with spaces goes in quotes: --name "my app"\)\n/,
  );
  expect((await keys('create', '--name', 'x')).status).toBe(0);
  const foreign = await keys('revoke', 'x', '--scope', 'admin');
  expect(foreign.status).toBe(2);
  expect(foreign.stderr).toMatch(/^revoke does not take --scope\n/);
  expect((await keys('list', 'everything')).stderr).toMatch(/^list takes no arguments besides its options; it was also given "everything"\n/);
  expect((await keys('create', '--name', 'y', '--id')).stderr).toMatch(/^create does not take --id\n/);
  // The last of two values would win unseen.
  expect((await keys('create', '--name', 'y', '--name', 'z')).stderr).toMatch(/^--name given more than once\n/);
  expect((await keys('create', '--name', 'y', '--quota', '1', '--quota', '2')).stderr).toMatch(/^--quota given more than once\n/);
  expect((await keys('create', '--name', 'y', '--plan', '')).stderr).toMatch(/^--plan must not be empty or only spaces\n/);
  expect(Object.fromEntries(Object.entries(await states(keys)).map(([name, k]) => [name, k.state]))).toEqual({ x: 'active' });
}

/** Limits are whole numbers in digits within their bounds: nothing Number() would bend into one. */
async function takesLimitsAsWritten(keys: Run): Promise<void> {
  for (const [option, value, bound] of [
    ['--quota', '', 'from 0 to 1000000000000'],
    ['--quota', '1e3', 'from 0 to 1000000000000'],
    ['--quota', '1e21', 'from 0 to 1000000000000'],
    ['--quota', '9007199254740993', 'from 0 to 1000000000000'],
    ['--quota', ' 5', 'from 0 to 1000000000000'],
    ['--quota', '-1', 'from 0 to 1000000000000'],
    ['--rate', '0x10', 'from 1 to 1000000'],
    ['--rate', '0', 'from 1 to 1000000'],
    ['--rate', '1.5', 'from 1 to 1000000'],
    ['--streams', '1000001', 'from 1 to 1000000'],
  ] as const) {
    const r = await keys('create', '--name', 'limits', `${option}=${value}`);
    expect(r.status, `${option} ${value}`).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^${option} must be a whole number ${bound}, written in digits; it was "${value.replace(/[.+]/g, '\\$&')}"\n`));
  }
  expect(await states(keys)).toEqual({});
  const r = await keys('create', '--name', 'limits', '--quota', '1000000000000', '--rate', '1000000', '--streams', '1');
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toContain('created key "limits" (plan free, 1000000000000 requests/month, 1000000/s, 1 streams)');
}

/** Names that print as nothing are refused; length counts characters, not UTF-16 units; a replaced key's form is reserved. */
async function refusesInvisibleNames(keys: Run): Promise<void> {
  for (const cp of [0x3164, 0x115f, 0xfe0f, 0x034f, 0x2800, 0x16fe4, 0x1d159, 0xfffd]) {
    const r = await keys('create', '--name', `a${String.fromCodePoint(cp)}b`);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`has U+${cp.toString(16).toUpperCase().padStart(4, '0')} at character 2`);
  }
  expect((await keys('create', '--name', '⛷'.repeat(101))).stderr).toMatch(/^--name must be at most 100 characters; it has 101\n/);
  // A mark with no letter under it, or a pile of them, prints as nothing or as a smear.
  expect((await keys('create', '--name', '\u0300\u0301')).stderr).toContain('--name may hold combining marks only on a letter or digit, at most 4 on one;');
  expect((await keys('create', '--name', `a${'\u0301'.repeat(99)}`)).stderr).toContain('has more on one');
  expect((await keys('create', '--name', `e${'\u0301'.repeat(5)}`)).stderr).toContain('has more on one');
  // Not trimmed: the name would not be the one typed (and `revoke` of what was typed would not find it).
  for (const name of [' x', 'x ', 'trimmed\n', '\u3000x']) expect((await keys('create', '--name', name)).status, JSON.stringify(name)).toBe(2);
  expect((await keys('create', '--name', 'x~REPLACED-5')).stderr).toMatch(/^--name may not contain "~replaced-"/);
  const reserved = await keys('create', '--name', 'beta~replaced-7');
  expect(reserved.stderr).toMatch(/^--name may not contain "~replaced-": a key replaced with --replace is listed under such a name\n/);
  expect(await states(keys)).toEqual({});
  expect((await keys('create', '--name', '🏂'.repeat(100))).status).toBe(0);
  // One name however it was typed: NFC and NFD "résumé" are one, and revoke finds it either way.
  expect((await keys('create', '--name', 'résumé'.normalize('NFC'))).status).toBe(0);
  expect((await keys('create', '--name', 'résumé'.normalize('NFD'))).stderr).toMatch(/^A key named "résumé" exists already/);
  expect((await keys('revoke', 'résumé'.normalize('NFD'))).stdout).toMatch(/^revoked key "résumé" \(id \d+\)\n$/);
}

/** Replaces racing each other: each old key is revoked by exactly the command that says so; one key holds the name at the end. */
async function replacesOnceUnderRace(keys: Run): Promise<void> {
  expect((await keys('create', '--name', 'rr')).status).toBe(0);
  const runs = await Promise.all(Array.from({ length: 8 }, () => keys('create', '--name', 'rr', '--replace')));
  const reported: number[] = [];
  for (const r of runs) {
    if (r.status === 0) reported.push(Number(/^revoked the earlier key "rr" \(id (\d+)\)/.exec(r.stdout)![1]));
    else expect(r.stderr).toMatch(/^Nothing was changed: another command (replaced or revoked the key named "rr" \(id \d+\)|made a key named "rr") meanwhile/);
  }
  const all = await states(keys);
  expect(Object.entries(all).filter(([name, k]) => name === 'rr' && k.state === 'active')).toHaveLength(1);
  const replaced = Object.entries(all).filter(([name]) => name.startsWith('rr~replaced-'));
  expect(replaced.map(([, k]) => k.id).sort()).toEqual(reported.sort());
  for (const [name, k] of replaced) expect([name, k.state]).toEqual([`rr~replaced-${k.id}`, 'revoked']);
}

/** Revokes racing each other: each key is revoked once, by one command; the others say so and exit 2. */
async function revokesOnceUnderRace(keys: Run): Promise<void> {
  expect((await keys('create', '--name', 'raced')).status).toBe(0);
  expect((await keys('create', '--name', 'bystander')).status).toBe(0);
  const runs = await Promise.all(Array.from({ length: 4 }, () => keys('revoke', 'bystander', 'raced')));
  expect(runs.filter((r) => r.status === 0)).toHaveLength(1);
  for (const r of runs.filter((r) => r.status !== 0)) {
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^Nothing was revoked:\n {2}key "(bystander|raced)" \(id \d+\) was (revoked already, at |revoked or replaced by another command meanwhile)/,
    );
  }
}

/** The walks both stores must pass alike, each a test of its own in each store's block. */
const IN_EVERY_STORE: [string, (keys: Run) => Promise<void>][] = [
  ['revoke NAME… by name and revoke --id N… by id, each key printed with its name and id; an unknown argument revokes nothing', revokesExactlyWhatItIsTold],
  ['a name with a control character, an ANSI escape or a bidi override is refused with a sentence', refusesUnprintableNames],
  ['a command given an argument or option it does not take fails naming it, and changes nothing', takesOnlyItsOwnArguments],
  ['--quota, --rate and --streams are whole numbers in digits within their bounds, or the command fails naming them', takesLimitsAsWritten],
  ['a name of invisible characters, over 100 characters (code points), or in a replaced key’s form is refused', refusesInvisibleNames],
  ['revokes racing each other revoke each key once; every other command revokes nothing and exits 2', revokesOnceUnderRace],
  ['--replace racing itself revokes each old key once, said by the command that did; one key holds the name', replacesOnceUnderRace],
];

describe('the keys command, on a server’s SQLite file', () => {
  const sqlite = (): Run => {
    const dbPath = privateDatabase('gateway-keys-cli-');
    return (...args) => runCommand(dbPath, cliCommand('keys', ...args));
  };

  for (const [title, walk] of IN_EVERY_STORE) it(title, () => walk(sqlite()), 60_000);

  it('replacing is all or nothing: a key replaced meanwhile, or a secret that exists, changes nothing', () => {
    const repository = new KeyRepository(openDatabase(privateDatabase('gateway-keys-cli-')));
    const key = (name: string, keyHash: string) => ({ name, plan: 'free', keyHash, createdAt: '2027-01-01', monthlyQuota: 1, ratePerSecond: 1, scopes: '' });
    repository.create(key('c', 'hash-c1'));
    const first = repository.findByName('c')!;
    expect(repository.replace(key('c', 'hash-c2'), '2027-01-02', first)).toBe('added');
    expect(repository.replace(key('c', 'hash-c3'), '2027-01-03', first)).toBe('stale');
    const second = repository.findByName('c')!;
    expect(repository.replace(key('c', 'hash-c1'), '2027-01-03', second)).toBe('duplicate');
    expect(repository.findByName('c')).toEqual(second);
    expect(repository.findByHash('hash-c3')).toBeUndefined();
  });

  it('commands started at once on a database not built yet: one builds it, the others wait, and every key made is kept', async () => {
    const dbPath = path.join(testDir('gateway-keys-new-'), 'new.sqlite');
    const runs = await Promise.all(['n1', 'n2', 'n3', 'n4'].map((name) => runCommand(dbPath, cliCommand('keys', 'create', '--name', name))));
    for (const r of runs) expect(r.status, r.stderr).toBe(0);
    const run = (...args: string[]) => runCommand(dbPath, cliCommand('keys', ...args));
    expect(Object.keys(await states(run)).sort()).toEqual(['n1', 'n2', 'n3', 'n4']);
    expect(existsSync(`${dbPath}-build-lock`)).toBe(false);
  }, 120_000);

  it("create's arguments are checked before the store is opened: a typo builds no database and is not hidden behind an unreachable Redis", async () => {
    const dbPath = path.join(testDir('gateway-keys-new-'), 'new.sqlite');
    const typo = await runCommand(dbPath, cliCommand('keys', 'create', '--name', 'a\tb'));
    expect(typo.status).toBe(2);
    expect(typo.stderr).toMatch(/^--name may hold visible, printable characters only/);
    expect(existsSync(dbPath)).toBe(false);
    // Nothing listens on port 1: the quota is what is wrong, and it is said at once.
    const away = await runCommand(dbPath, cliCommand('keys', 'create', '--name', 'ok', '--quota', 'lots'), { REDIS_URL: 'redis://127.0.0.1:1' });
    expect(away.status).toBe(2);
    expect(away.stderr).toMatch(/^--quota must be a whole number from 0 to/);
  });

  it('a reader that stops early (keys list | head -1) ends the command quietly', async () => {
    const dbPath = privateDatabase('gateway-keys-cli-');
    for (let i = 0; i < 3; i++) expect((await runCommand(dbPath, cliCommand('keys', 'create', '--name', `k${i}`))).status).toBe(0);
    const [command, args] = cliCommand('keys', 'list');
    const child = spawn(command, args, { cwd: process.cwd(), env: { ...process.env, DB_PATH: dbPath }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    // Closed before the command writes: its every write meets a closed pipe.
    child.stdout.destroy();
    const status = await new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
  }, 60_000);

  it('revoking is all or none when another command revoked one of the keys after they were read', () => {
    const repository = new KeyRepository(openDatabase(privateDatabase('gateway-keys-cli-')));
    for (const name of ['a', 'b'])
      repository.create({ name, plan: 'free', keyHash: `hash-${name}`, createdAt: '2027-01-01', monthlyQuota: 1, ratePerSecond: 1, scopes: '' });
    const [a, b] = [repository.findByName('a')!, repository.findByName('b')!];
    expect(repository.revoke([b], '2027-01-02')).toEqual([]);
    expect(repository.revoke([a, b], '2027-01-03').map((k) => k.name)).toEqual(['b']);
    expect(repository.findByName('a')!.revokedAt).toBeNull();
    expect(repository.findByName('b')!.revokedAt).toBe('2027-01-02');
  });

  it('--replace when the replaced name is taken (a name made before names were checked) picks the next free one', async () => {
    const dbPath = privateDatabase('gateway-keys-cli-');
    expect((await runCommand(dbPath, cliCommand('keys', 'create', '--name', 'beta'))).status).toBe(0);
    const db = new Database(dbPath);
    db.prepare(
      "INSERT INTO api_keys (name, plan, key_hash, created_at, monthly_quota, rate_per_second) VALUES ('beta~replaced-1', 'free', 'h', '2027-01-01', 1, 1)",
    ).run();
    db.close();
    const r = await runCommand(dbPath, cliCommand('keys', 'create', '--name', 'beta', '--replace'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^revoked the earlier key "beta" \(id 1\); it is listed as "beta~replaced-1-2"\n/);
  }, 60_000);

  it('a name stored before names were checked is listed escaped, and can be revoked by id', async () => {
    const dbPath = privateDatabase('gateway-keys-cli-');
    const db = new Database(dbPath);
    db.prepare(
      "INSERT INTO api_keys (id, name, plan, key_hash, created_at, monthly_quota, rate_per_second) VALUES (7, ?, 'free\u001b[0m', 'h', '2027-01-01', 1, 1)",
    ).run('old\u001b[2Jname');
    db.close();
    const list = await runCommand(dbPath, cliCommand('keys', 'list'));
    expect(list.stdout).not.toContain('\u001b');
    expect(list.stdout).toMatch(/^\s+7\s+old\\u\{1b\}\[2Jname\s+free\\u\{1b\}\[0m\s/m);
    const r = await runCommand(dbPath, cliCommand('keys', 'revoke', '--id', '7'));
    expect(r.stdout).toBe('revoked key "old\\u{1b}[2Jname" (id 7)\n');
  }, 60_000);
});

describe.skipIf(!haveRedis)('the keys command, on the Redis replicas share', () => {
  let redis: TestRedis;
  const run = promisify(execFile);
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());
  const inRedis = (): Run => {
    const dbPath = privateDatabase('gateway-keys-cli-');
    return (...args) => runCommand(dbPath, cliCommand('keys', ...args), { REDIS_URL: redis.url });
  };
  const flush = async () => expect((await run('redis-cli', [...redis.cliArgs, 'FLUSHALL'])).stdout.trim()).toBe('OK');
  /** The key store a replica uses, on an emptied Redis, for the test's steps; its link closed after. */
  const withStore = async (steps: (store: RedisKeyStore) => Promise<void>) => {
    await flush();
    const link = connectRedis({ kind: 'url', url: redis.url }, createLogger('silent'));
    try {
      expect(await waitUntilUp(link, 5000)).toBe(true);
      await steps(new RedisKeyStore(link));
    } finally {
      await link.close();
    }
  };

  for (const [title, walk] of IN_EVERY_STORE)
    it(title, async () => {
      await flush();
      await walk(inRedis());
    }, 60_000);

  it('a name two keys share (two commands creating it at once) is ambiguous: nothing revoked, the ids named', async () => {
    await flush();
    const keys = inRedis();
    expect((await keys('create', '--name', 'twin')).status).toBe(0);
    // The second, as a command racing the first would have left it.
    await run('redis-cli', [...redis.cliArgs, 'HSET', 'szg:key:racedhash', 'id', '2', 'name', 'twin', 'plan', 'free', 'createdAt', '2027-01-01']);
    await run('redis-cli', [...redis.cliArgs, 'HSET', 'szg:key:racedhash', 'revokedAt', '', 'monthlyQuota', '1', 'ratePerSecond', '1', 'origin', 'cli']);
    await run('redis-cli', [...redis.cliArgs, 'HSET', 'szg:key-ids', '2', 'racedhash']);
    const r = await keys('revoke', 'twin');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Nothing was revoked:\n {2}"twin" names 2 keys \(ids 1, 2\): revoke one by id \(--id 1\)\n/);
    const byId = await keys('revoke', '--id', '2');
    expect(byId.stdout).toBe('revoked key "twin" (id 2)\n');
    expect((await keys('list')).stdout).toMatch(/^\s+1\s+twin\s.*\sactive\s/m);
  }, 60_000);

  it('a REDIS_URL that does not parse is a sentence naming it, not a stack', async () => {
    for (const url of [
      'redis://127.0.0.1:99999',
      'redis://[::1',
      'redis://u:p%zz@127.0.0.1:6379',
      'redis://127.0.0.1:6379/abc',
      'redis://127.0.0.1:0',
      'redis://',
    ]) {
      const r = await runCommand(privateDatabase('gateway-keys-cli-'), cliCommand('keys', 'list'), { REDIS_URL: url });
      expect(r.status, url).toBe(2);
      expect(r.stderr).toMatch(/REDIS_URL.*a URL that parses \(a host, a port from 1 to 65535, user and password validly %-escaped, a database number\)/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  }, 60_000);

  it('what Redis refuses is a sentence with its code, never its own words or a stack', async () => {
    await flush();
    // A counter no longer a number (hand-edited): INCR fails before anything is written.
    await run('redis-cli', [...redis.cliArgs, 'SET', 'szg:key-next-id', 'not-a-number']);
    const r = await inRedis()('create', '--name', 'x');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('Could not create the key: Redis refused it (ERR); `npm run keys -- list` shows what it holds.\n');
    expect(await states(inRedis())).toEqual({});
  }, 60_000);

  it('requests answered while Redis was away are added once per batch, however often the batch is sent, and never to a key that took the id', async () => {
    await withStore(async (store) => {
      await store.create({ name: 'a', plan: 'free', keyHash: 'hash-a', createdAt: '2027-01-01', monthlyQuota: 100, ratePerSecond: 1, scopes: '' });
      const a = (await store.findByName('a'))!;
      const batch = { batchId: 'replica-1-batch-1', keyId: a.id, keyHash: 'hash-a', month: '2027-01', requests: 5 };
      // Sent again after its answer was lost (Redis stalled): added once.
      expect(await store.addUsage(batch)).toBe('added');
      expect(await store.addUsage(batch)).toBe('added');
      expect(await store.addUsage({ ...batch, batchId: 'replica-1-batch-2', requests: 2 })).toBe('added');
      expect((await store.list('2027-01')).map((k) => [k.name, k.requests])).toEqual([['a', 7]]);
      // The id is another key's now (Redis came back empty): nothing added.
      expect(await store.addUsage({ ...batch, batchId: 'replica-1-batch-3', keyHash: 'hash-lost' })).toBe('gone');
      expect((await store.list('2027-01')).map((k) => [k.name, k.requests])).toEqual([['a', 7]]);
    });
  });

  it('revoking is all or none when another command revoked one of the keys after they were read', async () => {
    await withStore(async (store) => {
      for (const name of ['a', 'b'])
        await store.create({ name, plan: 'free', keyHash: `hash-${name}`, createdAt: '2027-01-01', monthlyQuota: 1, ratePerSecond: 1, scopes: '' });
      const [a, b] = [(await store.findByName('a'))!, (await store.findByName('b'))!];
      expect(await store.revoke([b], '2027-01-02')).toEqual([]);
      expect((await store.revoke([a, b], '2027-01-03')).map((k) => k.name)).toEqual(['b']);
      expect((await store.findByName('a'))!.revokedAt).toBeNull();
      expect((await store.findByName('b'))!.revokedAt).toBe('2027-01-02');
      // A name is made once, checked in the script that makes it (as SQLite's unique name does).
      expect(
        await store.createNamed({ name: 'b', plan: 'free', keyHash: 'hash-b2', createdAt: '2027-01-01', monthlyQuota: 1, ratePerSecond: 1, scopes: '' }),
      ).toBe('taken');
      // Replacing likewise: a key replaced meanwhile, or a secret that exists, changes nothing.
      const key = (keyHash: string) => ({ name: 'a', plan: 'free', keyHash, createdAt: '2027-01-01', monthlyQuota: 1, ratePerSecond: 1, scopes: '' });
      expect(await store.replace(key('hash-a2'), '2027-01-04', a)).toBe('added');
      expect(await store.replace(key('hash-a3'), '2027-01-05', a)).toBe('stale');
      const second = (await store.findByName('a'))!;
      expect(await store.replace(key('hash-b'), '2027-01-05', second)).toBe('duplicate');
      expect(await store.findByName('a')).toEqual(second);
      expect((await store.list('')).map((k) => [k.id, k.name, k.revokedAt])).toEqual([
        [1, 'a~replaced-1', '2027-01-04'],
        [2, 'b', '2027-01-02'],
        [3, 'a', null],
      ]);
    });
  });
});
