import type { Db } from '../db/open.js';

export interface ApiKeyRecord {
  id: number;
  name: string;
  plan: string;
  keyHash: string;
  createdAt: string;
  revokedAt: string | null;
  monthlyQuota: number;
  ratePerSecond: number;
  /** Space-separated; 'admin' may start sync runs. */
  scopes: string;
}

export interface NewKey {
  name: string;
  plan: string;
  keyHash: string;
  createdAt: string;
  monthlyQuota: number;
  ratePerSecond: number;
  scopes: string;
}

const COLUMNS = `id, name, plan, key_hash AS keyHash, created_at AS createdAt, revoked_at AS revokedAt,
  monthly_quota AS monthlyQuota, rate_per_second AS ratePerSecond, scopes`;

export class KeyRepository {
  private readonly byHash;
  private readonly insert;
  private readonly upsertStmt;
  private readonly listStmt;
  private readonly revokeStmt;
  private readonly addStmt;
  private readonly usageStmt;
  private readonly dataVersionStmt;
  private readonly countStmt;

  constructor(private readonly db: Db) {
    this.byHash = db.prepare<[string], ApiKeyRecord>(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ?`);
    this.insert = db.prepare<NewKey>(`INSERT INTO api_keys (name, plan, key_hash, created_at, monthly_quota, rate_per_second, scopes)
      VALUES (@name, @plan, @keyHash, @createdAt, @monthlyQuota, @ratePerSecond, @scopes) ON CONFLICT (key_hash) DO NOTHING`);
    this.upsertStmt = db.prepare<NewKey>(`INSERT INTO api_keys (name, plan, key_hash, created_at, monthly_quota, rate_per_second, scopes)
      VALUES (@name, @plan, @keyHash, @createdAt, @monthlyQuota, @ratePerSecond, @scopes)
      ON CONFLICT (key_hash) DO UPDATE SET monthly_quota = excluded.monthly_quota, rate_per_second = excluded.rate_per_second, scopes = excluded.scopes`);
    this.listStmt = db.prepare<[string], ApiKeyRecord & { requests: number }>(
      `SELECT ${COLUMNS}, coalesce((SELECT requests FROM key_usage u WHERE u.key_id = k.id AND u.month = ?), 0) AS requests
       FROM api_keys k ORDER BY id`,
    );
    this.revokeStmt = db.prepare<{ ref: string; at: string }>(
      'UPDATE api_keys SET revoked_at = :at WHERE (name = :ref OR CAST(id AS TEXT) = :ref) AND revoked_at IS NULL',
    );
    this.addStmt = db.prepare<{ keyId: number; month: string; requests: number }>(
      `INSERT INTO key_usage (key_id, month, requests) VALUES (:keyId, :month, :requests)
       ON CONFLICT (key_id, month) DO UPDATE SET requests = requests + excluded.requests`,
    );
    this.usageStmt = db.prepare<[number, string], { requests: number }>('SELECT requests FROM key_usage WHERE key_id = ? AND month = ?');
    this.dataVersionStmt = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.countStmt = db.prepare<[], number>('SELECT count(*) FROM api_keys').pluck();
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

  /** Adds a key; a key whose hash exists already is left as it is. Returns whether it was added. */
  create(key: NewKey): boolean {
    return this.insert.run(key).changes > 0;
  }

  /** Adds a key, or sets the limits of the existing one with the same hash (revocation stays). */
  upsertLimits(key: NewKey): void {
    this.upsertStmt.run(key);
  }

  list(month: string): (ApiKeyRecord & { requests: number })[] {
    return this.listStmt.all(month);
  }

  revoke(ref: string, at: string): boolean {
    return this.revokeStmt.run({ ref, at }).changes > 0;
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
