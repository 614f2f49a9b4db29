import { LRUCache } from 'lru-cache';
import type { KeyRepository, ApiKeyRecord } from '../data/repositories/keys.js';
import { hashApiKey } from './api-key.js';
import type { Problem } from '../lib/errors.js';
import {
  allowed,
  type Counted,
  malformedKey,
  monthOf,
  policyOf,
  quotaUsedUp,
  rateLimited,
  revokedKey,
  standingOf,
  unknownKey,
  type GuardResult,
} from './guard-answers.js';

export { monthOf, secondsToMonthEnd, type Counted, type GuardResult } from './guard-answers.js';
import type { UsageCounter } from './usage-counter.js';

/** A key as the guard keeps it: the record and its header values (the policy's for this month). */
interface KnownKey {
  record: ApiKeyRecord;
  policy: string;
  policyMonth: string;
  quota: string;
}

const NO_SUCH_KEY = false as const;

/**
 * How often the database is asked whether someone else wrote to it (ms of the injected clock): a
 * revocation waits at most this long. The question takes SQLite's read locks, system calls that
 * cost more the longer since the last (BENCHMARKS.md, design figures: key check).
 */
export const VERSION_CHECK_MS = 100;

/**
 * Every request passes here: the key must exist and not be revoked, the per-second rate and the
 * monthly quota must have room. Monthly usage is persisted (UsageCounter); the per-second window
 * lives in memory only.
 *
 * Keys are kept in memory (unknown ones too, bounded), so a request neither hashes its key nor
 * reads the database for it. Whenever another connection or process has written the database
 * (SQLite's `PRAGMA data_version` moves: `npm run keys -- revoke` in another shell), the cache is
 * dropped before the lookup. The version is read at most every VERSION_CHECK_MS, so a revocation
 * takes effect on the first request after that.
 */
export class AuthGuard {
  private readonly windows = new Map<number, { second: number; count: number }>();
  private readonly known = new LRUCache<string, KnownKey | typeof NO_SUCH_KEY>({ max: 10_000 });
  private version = -1;
  private versionCheckedAt = -Infinity;

  constructor(
    private readonly keys: KeyRepository,
    private readonly usage: UsageCounter,
    private readonly now: () => Date,
    private readonly enabled: boolean,
  ) {}

  private lookup(presented: string, t: number): KnownKey | null {
    // Either way: a clock set back must not stop the reads.
    if (Math.abs(t - this.versionCheckedAt) >= VERSION_CHECK_MS) {
      this.versionCheckedAt = t;
      const version = this.keys.dataVersion();
      if (version !== this.version) {
        this.known.clear();
        this.version = version;
      }
    }
    let known = this.known.get(presented);
    if (known === undefined) {
      const record = this.keys.findByHash(hashApiKey(presented));
      known = record ? { record, policy: '', policyMonth: '', quota: String(record.monthlyQuota) } : NO_SUCH_KEY;
      this.known.set(presented, known);
    }
    return known || null;
  }

  /** `presented` is the x-api-key header, or the token of an `Authorization: Bearer` header; `counted` says against which limits. */
  check(presented: string | string[] | undefined, counted: Counted = 'request'): GuardResult {
    if (!this.enabled) return { ok: true, key: null, headers: [] };
    const malformed = malformedKey(presented);
    if (malformed) return malformed;
    // The database lookup is by the key's SHA-256 and exact: no timing of a comparison leaks.
    const now = this.now();
    const known = this.lookup(presented as string, now.getTime());
    if (!known) return unknownKey();
    const key = known.record;
    if (key.revokedAt) return revokedKey();

    const month = monthOf(now);
    if (known.policyMonth !== month) {
      known.policy = policyOf(key, now);
      known.policyMonth = month;
    }
    if (counted !== 'quota') {
      const second = Math.floor(now.getTime() / 1000);
      const window = this.windows.get(key.id);
      if (window && window.second === second && window.count >= key.ratePerSecond) return rateLimited(key, known.policy);
      if (window && window.second === second) window.count++;
      else if (window) {
        window.second = second;
        window.count = 1;
      } else this.windows.set(key.id, { second, count: 1 });
    }
    if (counted === 'rate') return allowed(key, this.usage.used(key.id, month), known.policy, now, known.quota);

    const used = this.usage.take(key.id, month, key.monthlyQuota, key.ratePerSecond);
    if (used === null) return quotaUsedUp(key, known.policy, now);
    return allowed(key, used, known.policy, now, known.quota);
  }

  /** Whether a key holding streams may keep them (guard-answers.ts, standingOf); counts nothing. */
  standing(keyId: number): Problem | null {
    const now = this.now();
    return standingOf(this.keys.findById(keyId), this.usage.used(keyId, monthOf(now)), now);
  }
}
