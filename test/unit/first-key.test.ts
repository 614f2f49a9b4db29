import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/auth/api-key.js';
import { ensureFirstKey } from '../../src/auth/first-key.js';
import type { Config } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import { emptyDatabase } from '../helpers/keys-db.js';
import { KeyRepository } from '../../src/repositories/keys.js';
import { connectRedis, waitUntilUp, type RedisLink } from '../../src/cluster/redis.js';
import { RedisKeyStore } from '../../src/cluster/redis-keys.js';
import { haveRedis, startRedis, type TestRedis } from '../helpers/redis.js';

let store: ReturnType<typeof emptyDatabase>;
let db: Db;
let keys: KeyRepository;
let lines: { level: number; msg: string; apiKey?: string; keys?: number }[];
const logger = () =>
  pino({ level: 'info' }, new Writable({ write: (chunk, _e, done) => void (lines.push(JSON.parse(String(chunk))), done()) })) as never;
const config = (over: Partial<Config> = {}) => ({ auth: true, apiKeysQuota: 1000, apiKeysRate: 10, ...over }) as Config;
const now = () => new Date('2027-01-15T12:00:00Z');

beforeEach(() => {
  store = emptyDatabase('gateway-first-key-');
  db = store.db;
  keys = new KeyRepository(db);
  lines = [];
});
afterEach(() => store.remove());

describe('the first key', () => {
  it('a database without keys gets one admin key, printed once; only its hash is stored', async () => {
    await ensureFirstKey(keys, config(), logger(), now);
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line!.level).toBe(40);
    expect(line!.apiKey).toMatch(/^szg_/);
    expect(line!.msg).toContain(line!.apiKey);
    expect(line!.msg).toMatch(/name "first-key", admin scope/);
    expect(line!.msg).toMatch(/it is shown this once; send it as the x-api-key header, and make more with: npm run keys -- create --name NAME$/);
    const stored = keys.findByHash(hashApiKey(line!.apiKey!));
    expect(stored).toMatchObject({ name: 'first-key', plan: 'free', scopes: 'admin', monthlyQuota: 1000, ratePerSecond: 10, createdAt: '2027-01-15T12:00:00.000Z', revokedAt: null });
    expect(JSON.stringify(db.prepare('SELECT * FROM api_keys').all())).not.toContain(line!.apiKey);
  });

  it('a database with keys gets none, and hears how many there are', async () => {
    await ensureFirstKey(keys, config(), logger(), now);
    await ensureFirstKey(keys, config(), logger(), now);
    expect(keys.count()).toBe(1);
    expect(lines[1]).toMatchObject({ level: 30, keys: 1, msg: '1 API key on file; create another with: npm run keys -- create --name NAME' });
    keys.create({ name: 'b', plan: 'free', keyHash: 'x', createdAt: '', monthlyQuota: 1, ratePerSecond: 1, scopes: '' });
    await ensureFirstKey(keys, config(), logger(), now);
    expect(lines[2]!.msg).toMatch(/^2 API keys on file/);
  });

  it('with AUTH off nothing is made or said', async () => {
    await ensureFirstKey(keys, config({ auth: false }), logger(), now);
    expect(keys.count()).toBe(0);
    expect(lines).toEqual([]);
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
    links = [0, 1, 2].map(() => connectRedis(redis.url, logger()));
    for (const link of links) expect(await waitUntilUp(link, 5000)).toBe(true);
    const stores = links.map((l) => new RedisKeyStore(l));
    lines = [];
    await Promise.all(stores.map((s) => ensureFirstKey(s, config(), logger(), now)));
    expect(await stores[0]!.count()).toBe(1);
    const printed = lines.filter((l) => l.apiKey);
    expect(printed).toHaveLength(1);
    const [key] = await stores[1]!.list('2027-01');
    expect(key).toMatchObject({ name: 'first-key', scopes: 'admin', keyHash: hashApiKey(printed[0]!.apiKey!) });
    // One that starts later hears that there is one.
    lines = [];
    await ensureFirstKey(stores[2]!, config(), logger(), now);
    expect(lines).toMatchObject([{ level: 30, keys: 1 }]);
  });
});
