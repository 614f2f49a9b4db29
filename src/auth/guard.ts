import { LRUCache } from 'lru-cache';
import type { KeyRepository, ApiKeyRecord } from '../repositories/keys.js';
import type { Problem } from '../http/problem.js';
import { hashApiKey } from './api-key.js';
import type { UsageCounter } from './usage-counter.js';

export type GuardResult =
  | { ok: true; key: ApiKeyRecord | null; headers: string[] }
  | { ok: false; problem: Problem };

/** Seconds from `now` to the first instant of next month (UTC), when monthly usage resets. */
export function secondsToMonthEnd(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

const monthNames = new Map<number, string>();
/** The UTC month of an instant as YYYY-MM (one string per month, made once). */
export function monthOf(now: Date): string {
  const n = now.getUTCFullYear() * 12 + now.getUTCMonth();
  let name = monthNames.get(n);
  if (!name) monthNames.set(n, (name = now.toISOString().slice(0, 7)));
  return name;
}

/** A key as the guard keeps it: the record and its header values (the policy's for this month). */
interface KnownKey {
  record: ApiKeyRecord;
  policy: string;
  policyMonth: string;
  quota: string;
}

const NO_SUCH_KEY = false as const;

/** What a client without a usable key is told: how to send one, and how to get one. */
const HOW_TO_GET_ONE = 'The server printed a first key when it started with none; more with `npm run keys -- create --name NAME` on the server.';
const NO_KEY = `An API key is required: send it in the x-api-key header. ${HOW_TO_GET_ONE}`;
const BAD_KEY = `The API key is not valid. ${HOW_TO_GET_ONE}`;

/** How often the database is asked whether someone else wrote to it (ms). */
const VERSION_CHECK_MS = 1;

/**
 * Every request passes here: the key must exist and not be revoked, the per-second rate and the
 * monthly quota must have room. Monthly usage is persisted (UsageCounter); the per-second window
 * lives in memory only.
 *
 * Keys are kept in memory (unknown ones too, bounded), so a request neither hashes its key nor
 * reads the database for it. Whenever another connection or process has written the database
 * (SQLite's `PRAGMA data_version` moves: `npm run keys -- revoke` in another shell), the cache is
 * dropped before the lookup. The version is read at most once a millisecond (it costs a few
 * microseconds, a lookup's worth), so a revocation takes effect on the next request after it.
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

  private lookup(presented: string): KnownKey | null {
    const t = performance.now();
    if (t - this.versionCheckedAt >= VERSION_CHECK_MS) {
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

  /** `presented` is the x-api-key header, or the token of an `Authorization: Bearer` header. */
  check(presented: string | string[] | undefined): GuardResult {
    if (!this.enabled) return { ok: true, key: null, headers: [] };
    if (typeof presented !== 'string' || presented.length === 0) {
      return deny(401, 'UNAUTHENTICATED', NO_KEY);
    }
    if (presented.length > 256) return deny(401, 'UNAUTHENTICATED', BAD_KEY);
    // The database lookup is by the key's SHA-256 and exact: no timing of a comparison leaks.
    const known = this.lookup(presented);
    if (!known) return deny(401, 'UNAUTHENTICATED', BAD_KEY);
    const key = known.record;
    if (key.revokedAt) return deny(401, 'UNAUTHENTICATED', 'The API key has been revoked.');

    const now = this.now();
    const month = monthOf(now);
    if (known.policyMonth !== month) {
      known.policy = policy(key, now);
      known.policyMonth = month;
    }
    const second = Math.floor(now.getTime() / 1000);
    const window = this.windows.get(key.id);
    if (window && window.second === second && window.count >= key.ratePerSecond) {
      // The window is one second; the next one starts within a second.
      return deny(429, 'RATE_LIMITED', `Rate limit of ${key.ratePerSecond} requests per second exceeded.`, [
        'retry-after', '1',
        'ratelimit-limit', String(key.ratePerSecond),
        'ratelimit-remaining', '0',
        'ratelimit-reset', '1',
        'ratelimit-policy', known.policy,
      ]);
    }
    if (window && window.second === second) window.count++;
    else if (window) {
      window.second = second;
      window.count = 1;
    } else this.windows.set(key.id, { second, count: 1 });

    const reset = String(secondsToMonthEnd(now));
    const used = this.usage.take(key.id, month, key.monthlyQuota);
    if (used === null) {
      return deny(429, 'RATE_LIMITED', `Monthly quota of ${key.monthlyQuota} requests used up; it resets at the start of next month (UTC).`, [
        'retry-after', reset,
        'ratelimit-limit', known.quota,
        'ratelimit-remaining', '0',
        'ratelimit-reset', reset,
        'ratelimit-policy', known.policy,
      ]);
    }
    return {
      ok: true,
      key,
      headers: [
        'ratelimit-limit', known.quota,
        'ratelimit-remaining', String(Math.max(0, key.monthlyQuota - used)),
        'ratelimit-reset', reset,
        'ratelimit-policy', known.policy,
      ],
    };
  }
}

/**
 * Both limits, in the IETF RateLimit-Policy form: quota;w=window-seconds, where the quota's window
 * is this calendar month (28 to 31 days).
 */
function policy(key: ApiKeyRecord, now: Date): string {
  const days = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
  return `${key.monthlyQuota};w=${days * 86_400}, ${key.ratePerSecond};w=1`;
}

function deny(status: number, code: string, detail: string, headers: string[] = []): GuardResult {
  const extra = status === 401 ? ['www-authenticate', 'ApiKey header="x-api-key"'] : [];
  return { ok: false, problem: { status, code, detail, headers: [...headers, ...extra] } };
}
