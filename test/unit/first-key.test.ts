import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/auth/api-key.js';
import { ensureFirstKey, showOnTerminalAndInFile } from '../../src/auth/first-key.js';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Config } from '../../src/lib/config.js';
import type { Db } from '../../src/data/db/open.js';
import { emptyDatabase } from '../helpers/keys-db.js';
import { KeyRepository } from '../../src/data/repositories/keys.js';
import { connectRedis, waitUntilUp, type RedisLink } from '../../src/cluster/redis.js';
import { RedisKeyStore } from '../../src/cluster/redis-keys.js';
import { haveRedis, startRedis, type TestRedis } from '../helpers/redis.js';

let store: ReturnType<typeof emptyDatabase>;
let db: Db;
let keys: KeyRepository;
let lines: { level: number; msg: string; file?: string; keys?: number }[];
/** What reached the person who started the server (the terminal and the file), and the file's name. */
let shown: { key: string; text: string }[];
const show = (key: string, text: string) => {
  shown.push({ key, text });
  return '/srv/data/first-api-key.txt';
};
const logger = () =>
  pino(
    { level: 'info' },
    new Writable({
      write: (chunk, _e, done) => {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  ) as never;
const config = (over: Partial<Config> = {}) => ({ auth: true, apiKeysQuota: 1000, apiKeysRate: 10, ...over }) as Config;
const now = () => new Date('2027-01-15T12:00:00Z');

beforeEach(() => {
  store = emptyDatabase('gateway-first-key-');
  db = store.db;
  keys = new KeyRepository(db);
  lines = [];
  shown = [];
});
afterEach(() => store.remove());

describe('the first key', () => {
  it('a database without keys gets one admin key, shown once apart from the log, which names the file and never the key; only its hash is stored', async () => {
    await ensureFirstKey(keys, config(), logger(), now, show);
    expect(shown).toHaveLength(1);
    const [{ key, text }] = shown as [{ key: string; text: string }];
    expect(key).toMatch(/^szg_/);
    expect(text).toContain(key);
    expect(text).toMatch(/name "first-key", admin scope/);
    expect(text).toMatch(/It is shown this once: store it, send it as the x-api-key header, and make more with: npm run keys -- create --name NAME$/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, file: '/srv/data/first-api-key.txt' });
    expect(lines[0]!.msg).toContain('/srv/data/first-api-key.txt');
    expect(JSON.stringify(lines)).not.toContain(key);
    const stored = keys.findByHash(hashApiKey(key));
    expect(stored).toMatchObject({
      name: 'first-key',
      plan: 'free',
      scopes: 'admin',
      origin: 'first-key',
      monthlyQuota: 1000,
      ratePerSecond: 10,
      createdAt: '2027-01-15T12:00:00.000Z',
      revokedAt: null,
    });
    expect(JSON.stringify(db.prepare('SELECT * FROM api_keys').all())).not.toContain(key);
  });

  it('a database with keys gets none, and hears how many there are', async () => {
    await ensureFirstKey(keys, config(), logger(), now, show);
    await ensureFirstKey(keys, config(), logger(), now, show);
    expect(keys.count()).toBe(1);
    expect(lines[1]).toMatchObject({ level: 30, keys: 1, msg: '1 API key on file; create another with: npm run keys -- create --name NAME' });
    keys.create({ name: 'b', plan: 'free', keyHash: 'x', createdAt: '', monthlyQuota: 1, ratePerSecond: 1, scopes: '' });
    await ensureFirstKey(keys, config(), logger(), now, show);
    expect(lines[2]!.msg).toMatch(/^2 API keys on file/);
  });

  it('with AUTH off nothing is made or said', async () => {
    await ensureFirstKey(keys, config({ auth: false }), logger(), now, show);
    expect(keys.count()).toBe(0);
    expect(lines).toEqual([]);
    expect(shown).toEqual([]);
  });
});

describe.skipIf(!haveRedis)('the first key among replicas sharing one Redis', () => {
  let redis: TestRedis;
  let links: RedisLink[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(links.map((l) => l.close()));
    await redis.stop();
  });

  it('replicas starting at once on an empty Redis make exactly one key between them, printed by one', async () => {
    links = [0, 1, 2].map(() => connectRedis({ kind: 'url', url: redis.url }, logger()));
    for (const link of links) expect(await waitUntilUp(link, 5000)).toBe(true);
    const stores = links.map((l) => new RedisKeyStore(l));
    lines = [];
    shown = [];
    await Promise.all(stores.map((s) => ensureFirstKey(s, config(), logger(), now, show)));
    expect(await stores[0]!.count()).toBe(1);
    expect(shown).toHaveLength(1);
    const [key] = await stores[1]!.list('2027-01');
    expect(key).toMatchObject({ name: 'first-key', scopes: 'admin', origin: 'first-key', keyHash: hashApiKey(shown[0]!.key) });
    // One that starts later hears that there is one.
    lines = [];
    await ensureFirstKey(stores[2]!, config(), logger(), now, show);
    expect(lines).toMatchObject([{ level: 30, keys: 1 }]);
  });
});

describe('the first key beside the database', () => {
  it('is written to first-api-key.txt next to the database file, readable by its owner only, even over an older file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gateway-first-key-'));
    try {
      writeFileSync(path.join(dir, 'first-api-key.txt'), 'old\n', { mode: 0o644 });
      const file = showOnTerminalAndInFile(path.join(dir, 'gateway.sqlite'))('szg_first_0123456789', 'Your first key');
      expect(file).toBe(path.join(dir, 'first-api-key.txt'));
      expect(readFileSync(file, 'utf8')).toBe('szg_first_0123456789\n');
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is shown on stderr with the text and where the file is', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gateway-first-key-'));
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      const file = showOnTerminalAndInFile(path.join(dir, 'gateway.sqlite'))('szg_first_0123456789', 'Your first key: szg_first_0123456789');
      expect(written.join('')).toBe(`\nYour first key: szg_first_0123456789\n(also written to ${file}, readable by its owner only)\n\n`);
    } finally {
      process.stderr.write = write;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
