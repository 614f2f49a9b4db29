import {
  type ApiKeyRecord,
  type KeyOrigin,
  type CreateOutcome,
  type NewKey,
  type ReplaceOutcome,
  replacedName,
  type RevokedBy,
  type UsageBatch,
} from '../data/repositories/keys.js';
import type { Counted } from '../auth/guard-answers.js';
import { PREFIX, type RedisLink } from './redis.js';

/**
 * API keys, their monthly usage and per-second windows in Redis, for replicas. A key is a hash
 * under its SHA-256 (the key itself is never stored); ids come from a counter. Checking a request
 * is one script run atomically in Redis: it reads the key, refuses it if revoked, counts the
 * second and the month, and answers — so N replicas share exactly one quota and one rate, and a
 * revocation is seen by every replica on its next request (there is no per-replica cache to
 * invalidate; the replicas' copies only serve while Redis is unreachable).
 */

export const K = {
  key: (hash: string) => `${PREFIX}key:${hash}`,
  ids: `${PREFIX}key-ids`,
  nextId: `${PREFIX}key-next-id`,
  usage: (id: number, month: string) => `${PREFIX}usage:${id}:${month}`,
  usageBatch: (batchId: string) => `${PREFIX}usage-batch:${batchId}`,
};

/** KEYS[1]: the key's hash; ARGV: month, second, prefix, what is counted (Counted). See CheckOutcome for the answer. */
const CHECK = `
local k = redis.call('HMGET', KEYS[1], 'id', 'revokedAt', 'monthlyQuota', 'ratePerSecond', 'scopes', 'name', 'plan', 'createdAt', 'origin', 'revokedBy', 'streams')
if not k[1] then return {0} end
local fields = {k[1], k[2] or '', k[3], k[4], k[5] or '', k[6] or '', k[7] or '', k[8] or '', k[9] or '', k[10] or '', k[11] or ''}
if k[2] and k[2] ~= '' then return {1, fields, 0} end
local usageKey = ARGV[3] .. 'usage:' .. k[1] .. ':' .. ARGV[1]
local used = tonumber(redis.call('GET', usageKey) or '0')
if ARGV[4] ~= 'quota' then
  local rateKey = ARGV[3] .. 'rate:' .. k[1] .. ':' .. ARGV[2]
  local inSecond = tonumber(redis.call('GET', rateKey) or '0')
  if inSecond >= tonumber(k[4]) then return {2, fields, used} end
  redis.call('INCR', rateKey)
  redis.call('PEXPIRE', rateKey, 2000)
end
if ARGV[4] == 'rate' then return {4, fields, used} end
if used >= tonumber(k[3]) then return {3, fields, used} end
used = redis.call('INCR', usageKey)
redis.call('EXPIRE', usageKey, 34560000)
return {4, fields, used}
`;

/** KEYS[1]: the id-to-hash map; ARGV: the key's id, month, prefix. {revokedAt, monthlyQuota, used}, or {} for no such key. */
const STANDING = `
local hash = redis.call('HGET', KEYS[1], ARGV[1])
if not hash then return {} end
local k = redis.call('HMGET', ARGV[3] .. 'key:' .. hash, 'revokedAt', 'monthlyQuota')
local used = redis.call('GET', ARGV[3] .. 'usage:' .. ARGV[1] .. ':' .. ARGV[2]) or '0'
return {k[1] or '', k[2] or '0', used}
`;

/**
 * KEYS: the id-to-hash map, the usage counter, the batch's mark; ARGV: the key's id, its hash, n.
 * Adds n once per batch (a batch sent again after its answer was lost finds its mark: 2), and
 * not if the id belongs to another key now (Redis came back empty and ids were given again: 0).
 */
const ADD_USAGE = `
if not redis.call('SET', KEYS[3], '1', 'NX', 'EX', 86400) then return 2 end
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('INCRBY', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], 34560000)
return 1
`;

/** KEYS: the keys' hashes; ARGV[1]: when. The positions (from 1) of keys not active now, having revoked none; else {} with all revoked. */
const REVOKE_ALL = `
local stale = {}
for i, key in ipairs(KEYS) do
  local k = redis.call('HMGET', key, 'id', 'revokedAt')
  if not k[1] or (k[2] and k[2] ~= '') then stale[#stale + 1] = i end
end
if #stale > 0 then return stale end
for _, key in ipairs(KEYS) do redis.call('HSET', key, 'revokedAt', ARGV[1], 'revokedBy', 'operator') end
return {}
`;

/** Writes the new key under `id` (KEYS[1], KEYS[2]; ARGV: createArgs). Every check and the counter come first, so a refused command changes nothing. */
const WRITE_NEW = `
redis.call('HSET', KEYS[1], 'id', id, 'name', ARGV[1], 'plan', ARGV[2], 'createdAt', ARGV[3], 'revokedAt', '', 'monthlyQuota', ARGV[4],
  'ratePerSecond', ARGV[5], 'scopes', ARGV[6], 'origin', ARGV[7], 'streams', ARGV[8])
redis.call('HSET', KEYS[2], id, ARGV[9])
`;

/** KEYS: the new key, the id-to-hash map, the id counter; ARGV: createArgs. 1 added, 0 its secret exists already. */
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local id = redis.call('INCR', KEYS[3])
${WRITE_NEW}
return 1
`;

/** CREATE's, then KEYS[4] the old key; ARGV[10..12]: its name, its name once replaced, when. -1 when it no longer has the name. */
const REPLACE = `
local old = redis.call('HMGET', KEYS[4], 'name', 'revokedAt')
if old[1] ~= ARGV[10] then return -1 end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local id = redis.call('INCR', KEYS[3])
local revokedAt = ARGV[12]
if old[2] and old[2] ~= '' then revokedAt = old[2] end
redis.call('HSET', KEYS[4], 'name', ARGV[11], 'revokedAt', revokedAt, 'revokedBy', 'operator')
${WRITE_NEW}
return 1
`;

/** KEYS[1]: the id-to-hash map; ARGV: prefix, month. Every key as {hash, CHECK's fields…, this month's count}, in one step. */
const LIST = `
local ids = redis.call('HGETALL', KEYS[1])
local out = {}
for i = 1, #ids, 2 do
  local k = redis.call('HMGET', ARGV[1] .. 'key:' .. ids[i + 1], 'id', 'revokedAt', 'monthlyQuota', 'ratePerSecond', 'scopes', 'name', 'plan', 'createdAt', 'origin', 'revokedBy', 'streams')
  if k[1] then
    local used = redis.call('GET', ARGV[1] .. 'usage:' .. ids[i] .. ':' .. ARGV[2]) or '0'
    out[#out + 1] = {ids[i + 1], k[1], k[2] or '', k[3] or '0', k[4] or '0', k[5] or '', k[6] or '', k[7] or '', k[8] or '', k[9] or '', k[10] or '', k[11] or '', used}
  end
end
return out
`;

/** CREATE, if no key (active or not) has the name yet (ARGV[10]: the prefix): -2 when one has. Names are unique as in SQLite. */
const CREATE_NAMED = `
for _, hash in ipairs(redis.call('HVALS', KEYS[2])) do
  if redis.call('HGET', ARGV[10] .. 'key:' .. hash, 'name') == ARGV[1] then return -2 end
end
${CREATE}`;

/** A new key's fields as WRITE_NEW's ARGV takes them. */
const createArgs = (key: NewKey): (string | number)[] => [
  key.name,
  key.plan,
  key.createdAt,
  key.monthlyQuota,
  key.ratePerSecond,
  key.scopes,
  key.origin ?? 'cli',
  key.streams ?? '',
  key.keyHash,
];

export type CheckOutcome = { kind: 'unknown' } | { kind: 'revoked' | 'rate-limited' | 'quota-used-up' | 'allowed'; key: ApiKeyRecord; used: number };

const KINDS = ['unknown', 'revoked', 'rate-limited', 'quota-used-up', 'allowed'] as const;

function recordOf(fields: string[], keyHash: string): ApiKeyRecord {
  const [id, revokedAt, quota, rate, scopes, name, plan, createdAt, origin, revokedBy, streams] = fields;
  return {
    id: Number(id),
    keyHash,
    revokedAt: revokedAt || null,
    revokedBy: revokedAt ? ((revokedBy || null) as RevokedBy | null) : null,
    monthlyQuota: Number(quota),
    ratePerSecond: Number(rate),
    scopes: scopes ?? '',
    name: name ?? '',
    plan: plan ?? '',
    createdAt: createdAt ?? '',
    origin: (origin || 'cli') as KeyOrigin,
    streams: streams ? Number(streams) : null,
  };
}

export class RedisKeyStore {
  constructor(private readonly link: RedisLink) {
    link.cmd.defineCommand('szgCheckKey', { numberOfKeys: 1, lua: CHECK });
    link.cmd.defineCommand('szgAddUsage', { numberOfKeys: 3, lua: ADD_USAGE });
    link.cmd.defineCommand('szgKeyStanding', { numberOfKeys: 1, lua: STANDING });
    link.cmd.defineCommand('szgCreateKey', { numberOfKeys: 3, lua: CREATE });
    link.cmd.defineCommand('szgReplaceKey', { numberOfKeys: 4, lua: REPLACE });
    link.cmd.defineCommand('szgCreateNamedKey', { numberOfKeys: 3, lua: CREATE_NAMED });
    link.cmd.defineCommand('szgListKeys', { numberOfKeys: 1, lua: LIST });
    // Its number of keys is given on each call (the keys revoked together).
    link.cmd.defineCommand('szgRevokeAll', { lua: REVOKE_ALL });
  }

  /** A key's revocation, quota and this month's count, by id, counting nothing; undefined when there is no such key. */
  async standing(id: number, month: string): Promise<{ key: Pick<ApiKeyRecord, 'revokedAt' | 'monthlyQuota'>; used: number } | undefined> {
    const cmd = this.link.cmd as unknown as { szgKeyStanding(ids: string, id: number, month: string, prefix: string): Promise<string[]> };
    const [revokedAt, quota, used] = await cmd.szgKeyStanding(K.ids, id, month, PREFIX);
    if (quota === undefined) return undefined;
    return { key: { revokedAt: revokedAt || null, monthlyQuota: Number(quota) }, used: Number(used) };
  }

  /** Checks and counts one request (atomically), against the limits `counted` names. Throws when Redis is unreachable. */
  async check(keyHash: string, month: string, second: number, counted: Counted = 'request'): Promise<CheckOutcome> {
    const cmd = this.link.cmd as unknown as {
      szgCheckKey(key: string, month: string, second: number, prefix: string, counted: Counted): Promise<[number, string[]?, number?]>;
    };
    const [code, fields, used] = await cmd.szgCheckKey(K.key(keyHash), month, second, PREFIX, counted).catch((err: unknown) => {
      this.link.failed(err);
      throw err;
    });
    const kind = KINDS[code]!;
    if (kind === 'unknown') return { kind };
    return { kind, key: recordOf(fields!, keyHash), used: used ?? 0 };
  }

  /**
   * Adds a batch of requests answered while Redis was away to a key's count for that month, once
   * whatever the times it is sent (by its id, unique to the batch), and only if the id is still that
   * key's: 'gone' when Redis lost the key (came back empty), so no other key is charged.
   */
  async addUsage(batch: UsageBatch): Promise<'added' | 'gone'> {
    const cmd = this.link.cmd as unknown as {
      szgAddUsage(ids: string, usage: string, mark: string, id: number, hash: string, n: number): Promise<number>;
    };
    const code = await cmd.szgAddUsage(K.ids, K.usage(batch.keyId, batch.month), K.usageBatch(batch.batchId), batch.keyId, batch.keyHash, batch.requests);
    return code === 0 ? 'gone' : 'added';
  }

  /** Adds a key (one script: no half-made key); one whose hash exists already is left as it is. Returns whether it was added. */
  async create(key: NewKey): Promise<boolean> {
    const cmd = this.link.cmd as unknown as { szgCreateKey(...args: (string | number)[]): Promise<number> };
    return (await cmd.szgCreateKey(K.key(key.keyHash), K.ids, K.nextId, ...createArgs(key))) === 1;
  }
  /**
   * The keys one replica's environment names, as KeyRepository.syncEnvKeys adds them: each added,
   * or updated and active again, unless an operator revoked it (those are returned). Retiring
   * what no replica names is EnvKeyLease's: replicas may name different keys.
   */
  async upsertEnvKeys(keys: readonly NewKey[]): Promise<{ id: number; name: string }[]> {
    const revokedByOperator: { id: number; name: string }[] = [];
    for (const key of keys) {
      if (await this.create({ ...key, origin: 'env' })) continue;
      const [id, name, origin, revokedAt, revokedBy] = await this.link.cmd.hmget(K.key(key.keyHash), 'id', 'name', 'origin', 'revokedAt', 'revokedBy');
      if (origin !== 'env') continue;
      const stays = Boolean(revokedAt) && revokedBy === 'operator';
      if (stays) revokedByOperator.push({ id: Number(id), name: name ?? '' });
      await this.link.cmd.hset(K.key(key.keyHash), {
        monthlyQuota: key.monthlyQuota,
        ratePerSecond: key.ratePerSecond,
        scopes: key.scopes,
        ...(stays ? {} : { revokedAt: '', revokedBy: '' }),
      });
    }
    return revokedByOperator;
  }

  /** A key by its name, if any. */
  async findByName(name: string): Promise<ApiKeyRecord | undefined> {
    return (await this.list('')).find((k) => k.name === name);
  }

  /** Adds a key under a name no key has (checked in the same script): 'taken' when one has it, 'duplicate' when the secret exists. */
  async createNamed(key: NewKey): Promise<CreateOutcome> {
    const cmd = this.link.cmd as unknown as { szgCreateNamedKey(...args: (string | number)[]): Promise<number> };
    const code = await cmd.szgCreateNamedKey(K.key(key.keyHash), K.ids, K.nextId, ...createArgs(key), PREFIX);
    return code === 1 ? 'added' : code === 0 ? 'duplicate' : 'taken';
  }

  /**
   * Revokes and renames `old` (`name~replaced-<id>`) and adds the new key under its name, in one
   * script: 'stale' when `old` no longer holds the name (another command replaced it meanwhile),
   * 'duplicate' when the secret exists already; either changes nothing.
   */
  async replace(key: NewKey, at: string, old: ApiKeyRecord): Promise<ReplaceOutcome> {
    const cmd = this.link.cmd as unknown as { szgReplaceKey(...args: (string | number)[]): Promise<number> };
    const code = await cmd.szgReplaceKey(
      K.key(key.keyHash),
      K.ids,
      K.nextId,
      K.key(old.keyHash),
      ...createArgs(key),
      key.name,
      replacedName(key.name, old.id),
      at,
    );
    return code === 1 ? 'added' : code === 0 ? 'duplicate' : 'stale';
  }

  /** Whether this replica is the one to make the first key (only one ever is). */
  async claimFirstKey(): Promise<boolean> {
    return (await this.link.cmd.set(`${PREFIX}first-key-claimed`, '1', 'NX')) === 'OK';
  }

  async count(): Promise<number> {
    return this.link.cmd.hlen(K.ids);
  }

  /** Every key with this month's requests, by id. */
  async list(month: string): Promise<(ApiKeyRecord & { requests: number })[]> {
    // One script: read key by key, a replace running meanwhile could hide a key (its old name gone, its new id not yet read).
    const cmd = this.link.cmd as unknown as { szgListKeys(ids: string, prefix: string, month: string): Promise<string[][]> };
    const rows = await cmd.szgListKeys(K.ids, PREFIX, month);
    return rows.map(([hash, ...fields]) => ({ ...recordOf(fields.slice(0, 11), hash!), requests: Number(fields[11]) })).sort((a, b) => a.id - b.id);
  }

  /**
   * Revokes these keys, all or none, in one script: if one is no longer active (another command
   * revoked or replaced it since they were read), nothing is revoked and those keys are returned.
   * Resolves once Redis has them, so every replica refuses them from then on.
   */
  async revoke(keys: readonly ApiKeyRecord[], at: string): Promise<ApiKeyRecord[]> {
    const cmd = this.link.cmd as unknown as { szgRevokeAll(n: number, ...args: string[]): Promise<number[]> };
    const stale = await cmd.szgRevokeAll(keys.length, ...keys.map((k) => K.key(k.keyHash)), at);
    return stale.map((i) => keys[i - 1]!);
  }
}
