import type { Db } from '../db/open.js';
import { KEY_STORE_META, UNSENT_USAGE_META } from '../db/schema-sql.js';

export interface ApiKeyRecord {
  id: number;
  name: string;
  plan: string;
  keyHash: string;
  createdAt: string;
  revokedAt: string | null;
  /**
   * Who revoked it (see RevokedBy); null while it is active, and for a key revoked before this was
   * kept (an environment that names it makes it active again, as it always did).
   */
  revokedBy: RevokedBy | null;
  monthlyQuota: number;
  ratePerSecond: number;
  /** Space-separated; 'admin' may start sync runs. */
  scopes: string;
  /** Who made it (see KeyOrigin). */
  origin: KeyOrigin;
  /** Streams it may hold open at once (its own setting), or null for the server's STREAMS_PER_KEY. */
  streams: number | null;
}

/** `npm run keys`, the server's first start, or the environment (API_KEYS, API_ADMIN_KEYS). */
/** Requests one replica answered for a key while Redis was away, added to its count there as one (by its id, once). */
export interface UsageBatch {
  batchId: string;
  keyId: number;
  keyHash: string;
  month: string;
  requests: number;
}

export type KeyOrigin = 'cli' | 'first-key' | 'env';

/**
 * 'operator': `npm run keys -- revoke` (or `--replace`), for good, even for a key the environment
 * still names; 'environment': a key of API_KEYS retired because no server names it any more,
 * active again when one does.
 */
export type RevokedBy = 'operator' | 'environment';

/** What registering the environment's keys did: how many it retired, and which named keys an operator revoked (they stay so). */
export interface EnvKeySync {
  retired: number;
  revokedByOperator: { id: number; name: string }[];
}

export interface NewKey {
  name: string;
  plan: string;
  keyHash: string;
  createdAt: string;
  monthlyQuota: number;
  ratePerSecond: number;
  scopes: string;
  /** 'cli' when not said. */
  origin?: KeyOrigin;
  /** Its own cap on open streams; the server's default when not said. */
  streams?: number | null;
}

const COLUMNS = `id, name, plan, key_hash AS keyHash, created_at AS createdAt, revoked_at AS revokedAt, revoked_by AS revokedBy,
  monthly_quota AS monthlyQuota, rate_per_second AS ratePerSecond, scopes, origin, streams`;

/** What a replaced key's name gets (`beta~replaced-3`), so no new name may hold it. */
export const REPLACED = '~replaced-';

/** The name a key keeps once another is made under its name (`--replace`). */
export const replacedName = (name: string, id: number) => `${name}${REPLACED}${id}`;

/** What making a key under a name did (see KeyRepository.createNamed). */
export type CreateOutcome = 'added' | 'duplicate' | 'taken';

/** What replacing a key under its name did (see KeyRepository.replace). */
export type ReplaceOutcome = 'added' | 'duplicate' | 'stale';

/** Thrown inside a transaction to undo it (better-sqlite3 rolls back on a throw). */
const ROLL_BACK = Symbol('roll back');

export class KeyRepository {
  private readonly byHash;
  private readonly byId;
  private readonly insert;
  private readonly upsertEnvStmt;
  private readonly retireEnvStmt;
  private readonly revokedEnvStmt;
  private readonly byNameStmt;
  private readonly renameStmt;
  private readonly listStmt;
  private readonly revokeStmt;
  private readonly addStmt;
  private readonly usageStmt;
  private readonly dataVersionStmt;
  private readonly countStmt;

  constructor(private readonly db: Db) {
    this.byHash = db.prepare<[string], ApiKeyRecord>(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ?`);
    this.byId = db.prepare<[number], ApiKeyRecord>(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`);
    this.insert = db.prepare<Required<NewKey>>(`INSERT INTO api_keys (name, plan, key_hash, created_at, monthly_quota, rate_per_second, scopes, origin, streams)
      VALUES (@name, @plan, @keyHash, @createdAt, @monthlyQuota, @ratePerSecond, @scopes, @origin, @streams) ON CONFLICT (key_hash) DO NOTHING`);
    // A key from the environment follows it: its limits and scopes, and active while it is named
    // there, unless an operator revoked it (a key made otherwise with the same secret is left as it is).
    this.upsertEnvStmt = db.prepare<Required<NewKey>>(`INSERT INTO api_keys (name, plan, key_hash, created_at, monthly_quota, rate_per_second, scopes, origin)
      VALUES (@name, @plan, @keyHash, @createdAt, @monthlyQuota, @ratePerSecond, @scopes, 'env')
      ON CONFLICT (key_hash) DO UPDATE SET monthly_quota = excluded.monthly_quota, rate_per_second = excluded.rate_per_second, scopes = excluded.scopes,
        revoked_at = iif(api_keys.revoked_by = 'operator', api_keys.revoked_at, NULL), revoked_by = iif(api_keys.revoked_by = 'operator', 'operator', NULL)
      WHERE api_keys.origin = 'env'`);
    this.retireEnvStmt = db.prepare<{ hashes: string; at: string }>(
      `UPDATE api_keys SET revoked_at = :at, revoked_by = 'environment'
       WHERE origin = 'env' AND revoked_at IS NULL AND key_hash NOT IN (SELECT value FROM json_each(:hashes))`,
    );
    this.revokedEnvStmt = db.prepare<{ hashes: string }, { id: number; name: string }>(
      `SELECT id, name FROM api_keys WHERE origin = 'env' AND revoked_by = 'operator' AND key_hash IN (SELECT value FROM json_each(:hashes)) ORDER BY id`,
    );
    this.byNameStmt = db.prepare<[string], ApiKeyRecord>(`SELECT ${COLUMNS} FROM api_keys WHERE name = ?`);
    this.renameStmt = db.prepare<{ id: number; name: string; at: string }>(
      `UPDATE api_keys SET name = :name, revoked_at = coalesce(revoked_at, :at), revoked_by = 'operator' WHERE id = :id`,
    );
    this.listStmt = db.prepare<[string], ApiKeyRecord & { requests: number }>(
      `SELECT ${COLUMNS}, coalesce((SELECT requests FROM key_usage u WHERE u.key_id = k.id AND u.month = ?), 0) AS requests
       FROM api_keys k ORDER BY id`,
    );
    this.revokeStmt = db.prepare<{ id: number; at: string }>(
      "UPDATE api_keys SET revoked_at = :at, revoked_by = 'operator' WHERE id = :id AND revoked_at IS NULL",
    );
    this.addStmt = db.prepare<{ keyId: number; month: string; requests: number }>(
      `INSERT INTO key_usage (key_id, month, requests) VALUES (:keyId, :month, :requests)
       ON CONFLICT (key_id, month) DO UPDATE SET requests = requests + excluded.requests`,
    );
    this.usageStmt = db.prepare<[number, string], { requests: number }>('SELECT requests FROM key_usage WHERE key_id = ? AND month = ?');
    this.dataVersionStmt = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.countStmt = db.prepare<[], number>('SELECT count(*) FROM api_keys').pluck();
  }

  /**
   * Where this database's server keeps its keys: 'sqlite' (here), or 'redis' (a replica: its keys
   * are in the Redis all replicas share, not here). Null before any server has run on it.
   */
  keyStore(): 'sqlite' | 'redis' | null {
    const row = this.db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(KEY_STORE_META);
    return row ? (row.value as 'sqlite' | 'redis') : null;
  }

  /**
   * Requests a replica answered while Redis was away and could not add there before it stopped,
   * read at the next start and kept until Redis has them (a start killed before cannot lose them;
   * sent twice, Redis adds a batch once).
   */
  unsentUsage(): UsageBatch[] {
    const row = this.db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(UNSENT_USAGE_META);
    return row ? (JSON.parse(row.value) as UsageBatch[]) : [];
  }

  /** What is still to be sent, in place of what was (none: forgotten). */
  keepUnsentUsage(batches: readonly UsageBatch[]): void {
    if (batches.length === 0) this.db.prepare('DELETE FROM meta WHERE key = ?').run(UNSENT_USAGE_META);
    else
      this.db
        .prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
        .run(UNSENT_USAGE_META, JSON.stringify(batches));
  }

  setKeyStore(store: 'sqlite' | 'redis'): void {
    this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(KEY_STORE_META, store);
  }

  /** How many keys exist (revoked ones included). */
  count(): number {
    return this.countStmt.get()!;
  }

  /** Changes whenever another connection (or process) has committed to the database. */
  dataVersion(): number {
    return this.dataVersionStmt.get()!;
  }

  findByHash(hash: string): ApiKeyRecord | undefined {
    return this.byHash.get(hash);
  }

  findById(id: number): ApiKeyRecord | undefined {
    return this.byId.get(id);
  }

  /** Adds a key; a key whose hash exists already is left as it is. Returns whether it was added. */
  create(key: NewKey): boolean {
    return this.insert.run({ origin: 'cli', streams: null, ...key }).changes > 0;
  }

  /** Adds a key under a name no key has, checked in the same transaction (the keys command's `create`). */
  createNamed(key: NewKey): CreateOutcome {
    // IMMEDIATE: a read then a write, and another process may write between them (WAL would refuse the upgrade at once: SQLITE_BUSY).
    return this.db.transaction((): CreateOutcome => (this.findByName(key.name) ? 'taken' : this.create(key) ? 'added' : 'duplicate')).immediate();
  }

  findByName(name: string): ApiKeyRecord | undefined {
    return this.byNameStmt.get(name);
  }

  /**
   * Makes a key of `old`'s name in its place, all or nothing: the old key is revoked (if it was not)
   * and keeps its usage under a name of its own, `name~replaced-<id>`; then the new key is added.
   * 'stale' when `old` no longer holds the name (another command replaced it since it was read),
   * 'duplicate' when the new secret exists already; either changes nothing.
   */
  replace(key: NewKey, at: string, old: ApiKeyRecord): ReplaceOutcome {
    let outcome: ReplaceOutcome = 'added';
    try {
      this.db
        .transaction(() => {
          if (this.findByName(key.name)?.id !== old.id) {
            outcome = 'stale';
            throw ROLL_BACK;
          }
          // A name of this form made before names were checked could hold it already: the next free one.
          let name = replacedName(key.name, old.id);
          for (let n = 2; this.findByName(name); n++) name = `${replacedName(key.name, old.id)}-${n}`;
          this.renameStmt.run({ id: old.id, name, at });
          if (!this.create(key)) {
            outcome = 'duplicate';
            throw ROLL_BACK;
          }
        })
        .immediate();
    } catch (err) {
      if (err !== ROLL_BACK) throw err;
    }
    return outcome;
  }

  /**
   * The keys the environment names now (API_KEYS, API_ADMIN_KEYS): each added, or updated and
   * active again (unless an operator revoked it); every key the environment made that it no longer
   * names is retired (revoked).
   */
  syncEnvKeys(keys: readonly NewKey[], at: string): EnvKeySync {
    return this.db.transaction(() => {
      for (const key of keys) this.upsertEnvStmt.run({ ...key, origin: 'env', streams: null });
      const hashes = JSON.stringify(keys.map((k) => k.keyHash));
      return { retired: this.retireEnvStmt.run({ hashes, at }).changes, revokedByOperator: this.revokedEnvStmt.all({ hashes }) };
    })();
  }

  list(month: string): (ApiKeyRecord & { requests: number })[] {
    return this.listStmt.all(month);
  }

  /**
   * Revokes these keys, all or none: if one is no longer active (another command revoked or
   * replaced it since they were read), nothing is revoked and those keys are returned.
   */
  revoke(keys: readonly ApiKeyRecord[], at: string): ApiKeyRecord[] {
    const stale: ApiKeyRecord[] = [];
    try {
      this.db
        .transaction(() => {
          for (const k of keys) if (this.revokeStmt.run({ id: k.id, at }).changes === 0) stale.push(k);
          if (stale.length > 0) throw ROLL_BACK;
        })
        .immediate();
    } catch (err) {
      if (err !== ROLL_BACK) throw err;
    }
    return stale;
  }

  /** Adds counted requests, all in one transaction. */
  addUsage(batch: readonly { keyId: number; month: string; requests: number }[]): void {
    this.db.transaction(() => {
      for (const b of batch) this.addStmt.run(b);
    })();
  }

  usage(keyId: number, month: string): number {
    return this.usageStmt.get(keyId, month)?.requests ?? 0;
  }
}
