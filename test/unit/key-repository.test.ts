import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyRepository, replacedName, type NewKey } from '../../src/data/repositories/keys.js';
import { UNSENT_USAGE_META } from '../../src/data/db/schema-sql.js';
import { emptyDatabase } from '../helpers/keys-db.js';

let store: ReturnType<typeof emptyDatabase>;
let keys: KeyRepository;
beforeEach(() => {
  store = emptyDatabase('key-repository-');
  keys = new KeyRepository(store.db);
});
afterEach(() => store.remove());

const AT = '2027-01-15T12:00:00.000Z';
const LATER = '2027-01-16T08:00:00.000Z';
const key = (name: string, over: Partial<NewKey> = {}): NewKey => ({
  name,
  plan: 'free',
  keyHash: `hash-${name}`,
  createdAt: AT,
  monthlyQuota: 10_000,
  ratePerSecond: 25,
  scopes: '',
  ...over,
});
const byName = (name: string) => keys.findByName(name)!;
const state = (name: string) => {
  const k = keys.findByName(name);
  return k && [k.revokedAt, k.revokedBy];
};

describe('the key repository', () => {
  it('adds a key with every column, found by hash, id and name; a second key of the same hash is not added', () => {
    expect(keys.count()).toBe(0);
    expect(keys.create(key('a', { plan: 'pro', monthlyQuota: 5, ratePerSecond: 2, scopes: 'admin', streams: 7, origin: 'first-key' }))).toBe(true);
    const a = {
      id: 1,
      name: 'a',
      plan: 'pro',
      keyHash: 'hash-a',
      createdAt: AT,
      revokedAt: null,
      revokedBy: null,
      monthlyQuota: 5,
      ratePerSecond: 2,
      scopes: 'admin',
      origin: 'first-key',
      streams: 7,
    };
    expect(keys.findByHash('hash-a')).toEqual(a);
    expect(keys.findById(1)).toEqual(a);
    expect(keys.findByName('a')).toEqual(a);
    expect(keys.create(key('b', { keyHash: 'hash-a' }))).toBe(false);
    expect(keys.count()).toBe(1);
    // Made by the keys command unless said, with the server's stream cap.
    keys.create(key('c'));
    expect(byName('c')).toMatchObject({ origin: 'cli', streams: null });
    expect([keys.findByHash('nope'), keys.findById(99), keys.findByName('nope')]).toEqual([undefined, undefined, undefined]);
  });

  it('creates under a name no key has: added, taken, or a duplicate secret', () => {
    expect(keys.createNamed(key('a'))).toBe('added');
    expect(keys.createNamed(key('a', { keyHash: 'other' }))).toBe('taken');
    expect(keys.createNamed(key('b', { keyHash: 'hash-a' }))).toBe('duplicate');
    expect(keys.list('2027-01').map((k) => [k.name, k.keyHash])).toEqual([['a', 'hash-a']]);
  });

  it('replaces a key: the old one revoked under a name of its own, the new one under the name; all or nothing', () => {
    keys.create(key('a'));
    const old = byName('a');
    expect(keys.replace(key('a', { keyHash: 'new-a' }), LATER, old)).toBe('added');
    expect(keys.findById(old.id)).toMatchObject({ name: replacedName('a', old.id), revokedAt: LATER, revokedBy: 'operator' });
    expect(replacedName('a', old.id)).toBe('a~replaced-1');
    expect(byName('a')).toMatchObject({ id: 2, keyHash: 'new-a', revokedAt: null });
    // `old` no longer holds the name: stale, nothing changed.
    expect(keys.replace(key('a', { keyHash: 'newer-a' }), LATER, old)).toBe('stale');
    expect(keys.count()).toBe(2);
    // Another process renamed it, and no key has the name now: stale too.
    const renamed = byName('a');
    store.db.prepare("UPDATE api_keys SET name = 'elsewhere' WHERE id = ?").run(renamed.id);
    expect(keys.replace(key('a', { keyHash: 'newer-a' }), LATER, renamed)).toBe('stale');
    store.db.prepare("UPDATE api_keys SET name = 'a' WHERE id = ?").run(renamed.id);
    // The new secret exists already: the rename is undone too.
    const current = byName('a');
    expect(keys.replace(key('a', { keyHash: 'hash-a' }), LATER, current)).toBe('duplicate');
    expect(byName('a')).toMatchObject({ id: 2, revokedAt: null });
    expect(keys.count()).toBe(2);
  });

  it('a revoked key replaced keeps its revocation time; a replaced name taken already gets the next free one', () => {
    keys.create(key('a'));
    const old = byName('a');
    keys.revoke([old], AT);
    // Names of that form made before names were checked.
    keys.create(key(replacedName('a', old.id)));
    keys.create(key(`${replacedName('a', old.id)}-2`));
    expect(keys.replace(key('a', { keyHash: 'new-a' }), LATER, byName('a'))).toBe('added');
    expect(keys.findById(old.id)).toMatchObject({ name: 'a~replaced-1-3', revokedAt: AT, revokedBy: 'operator' });
  });

  it('revokes all or none: a key no longer active revokes nothing and is named', () => {
    keys.create(key('a'));
    keys.create(key('b'));
    keys.create(key('c'));
    const [a, b, c] = ['a', 'b', 'c'].map(byName);
    expect(keys.revoke([a!], AT)).toEqual([]);
    expect(state('a')).toEqual([AT, 'operator']);
    expect(keys.revoke([b!, a!, c!], LATER)).toEqual([a]);
    expect([state('a'), state('b'), state('c')]).toEqual([
      [AT, 'operator'],
      [null, null],
      [null, null],
    ]);
    expect(keys.revoke([b!, c!], LATER)).toEqual([]);
    expect([state('b'), state('c')]).toEqual([
      [LATER, 'operator'],
      [LATER, 'operator'],
    ]);
  });

  it('a failure inside a transaction that is not its own roll-back is thrown', () => {
    keys.create(key('a'));
    const a = byName('a');
    store.db.exec("CREATE TRIGGER no_revoke BEFORE UPDATE ON api_keys BEGIN SELECT raise(ABORT, 'refused'); END");
    expect(() => keys.revoke([a], AT)).toThrow('refused');
    expect(() => keys.replace(key('a', { keyHash: 'new' }), AT, a)).toThrow('refused');
    expect(keys.count()).toBe(1);
  });

  it('the environment’s keys: added, updated and active again while named, retired when not; an operator’s revocation stays', () => {
    keys.create(key('cli-key', { keyHash: 'cli-hash' }));
    const first = keys.syncEnvKeys([key('env-a', { keyHash: 'e1' }), key('env-b', { keyHash: 'e2' })], AT);
    expect(first).toEqual({ retired: 0, revokedByOperator: [] });
    expect(byName('env-a')).toMatchObject({ origin: 'env', streams: null, revokedAt: null });
    // e2 no longer named: retired; e1's limits follow the environment.
    expect(keys.syncEnvKeys([key('env-a', { keyHash: 'e1', monthlyQuota: 7, ratePerSecond: 3, scopes: 'admin' })], LATER)).toEqual({
      retired: 1,
      revokedByOperator: [],
    });
    expect(byName('env-a')).toMatchObject({ monthlyQuota: 7, ratePerSecond: 3, scopes: 'admin', revokedAt: null });
    expect(state('env-b')).toEqual([LATER, 'environment']);
    // Named again: active again. Retiring twice counts once.
    expect(keys.syncEnvKeys([key('env-a', { keyHash: 'e1' }), key('env-b', { keyHash: 'e2' })], LATER).retired).toBe(0);
    expect(state('env-b')).toEqual([null, null]);
    // An operator revoked e1: it stays revoked, and is reported while the environment names it.
    keys.revoke([byName('env-a')], AT);
    expect(keys.syncEnvKeys([key('env-a', { keyHash: 'e1' }), key('env-b', { keyHash: 'e2' })], LATER)).toEqual({
      retired: 0,
      revokedByOperator: [{ id: byName('env-a').id, name: 'env-a' }],
    });
    expect(state('env-a')).toEqual([AT, 'operator']);
    // A key the command made with the same secret is left as it is; it is never retired.
    expect(keys.syncEnvKeys([key('env-c', { keyHash: 'cli-hash', monthlyQuota: 1 })], LATER)).toEqual({ retired: 1, revokedByOperator: [] });
    expect(byName('cli-key')).toMatchObject({ origin: 'cli', monthlyQuota: 10_000, revokedAt: null });
    expect(keys.findByName('env-c')).toBeUndefined();
  });

  it('lists every key by id with this month’s requests; usage adds up per key and month', () => {
    keys.create(key('a'));
    keys.create(key('b'));
    keys.addUsage([
      { keyId: 1, month: '2027-01', requests: 3 },
      { keyId: 2, month: '2027-01', requests: 1 },
      { keyId: 1, month: '2026-12', requests: 9 },
    ]);
    keys.addUsage([{ keyId: 1, month: '2027-01', requests: 2 }]);
    expect(keys.list('2027-01').map((k) => [k.id, k.name, k.requests])).toEqual([
      [1, 'a', 5],
      [2, 'b', 1],
    ]);
    expect(keys.list('2027-02').map((k) => k.requests)).toEqual([0, 0]);
    expect(keys.list('2027-01')[0]).toMatchObject({ keyHash: 'hash-a', plan: 'free', revokedAt: null });
    expect([keys.usage(1, '2027-01'), keys.usage(1, '2026-12'), keys.usage(2, '2026-12')]).toEqual([5, 9, 0]);
  });

  it('where the keys live, and usage not yet sent to Redis, kept in the database’s meta table', () => {
    expect(keys.keyStore()).toBeNull();
    keys.setKeyStore('redis');
    expect(keys.keyStore()).toBe('redis');
    keys.setKeyStore('sqlite');
    expect(keys.keyStore()).toBe('sqlite');
    expect(keys.unsentUsage()).toEqual([]);
    const batch = { batchId: 'b1', keyId: 1, keyHash: 'h', month: '2027-01', requests: 4 };
    keys.keepUnsentUsage([batch]);
    keys.keepUnsentUsage([batch, { ...batch, batchId: 'b2' }]);
    expect(keys.unsentUsage().map((b) => b.batchId)).toEqual(['b1', 'b2']);
    keys.keepUnsentUsage([]);
    expect(keys.unsentUsage()).toEqual([]);
    expect(store.db.prepare('SELECT count(*) FROM meta WHERE key = ?').pluck().get(UNSENT_USAGE_META)).toBe(0);
  });

  it('data_version changes when another connection commits, not for its own writes', () => {
    const before = keys.dataVersion();
    keys.create(key('a'));
    expect(keys.dataVersion()).toBe(before);
    const other = new Database(store.file);
    other.prepare("UPDATE api_keys SET plan = 'pro'").run();
    other.close();
    expect(keys.dataVersion()).not.toBe(before);
  });
});
