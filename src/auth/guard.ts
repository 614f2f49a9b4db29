import type { KeyRepository, ApiKeyRecord } from '../repositories/keys.js';
import type { Problem } from '../rest/problem.js';
import { hashApiKey, sameHash } from './api-key.js';
import type { UsageCounter } from './usage-counter.js';

export type GuardResult =
  | { ok: true; key: ApiKeyRecord | null; headers: Record<string, string> }
  | { ok: false; problem: Problem };

/** Seconds from `now` to the first instant of next month (UTC), when monthly usage resets. */
export function secondsToMonthEnd(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

export const monthOf = (now: Date) => now.toISOString().slice(0, 7);

/**
 * Every request passes here: the key must exist and not be revoked, the per-second rate and the
 * monthly quota must have room. Monthly usage is persisted (UsageCounter); the per-second window
 * lives in memory only.
 */
export class AuthGuard {
  private readonly windows = new Map<number, { second: number; count: number }>();

  constructor(
    private readonly keys: KeyRepository,
    private readonly usage: UsageCounter,
    private readonly now: () => Date,
    private readonly enabled: boolean,
  ) {}

  check(presented: string | string[] | undefined): GuardResult {
    if (!this.enabled) return { ok: true, key: null, headers: {} };
    if (typeof presented !== 'string' || presented.length === 0) {
      return deny(401, 'UNAUTHENTICATED', 'An API key is required: send it in the x-api-key header.');
    }
    if (presented.length > 256) return deny(401, 'UNAUTHENTICATED', 'The API key is not valid.');
    const hash = hashApiKey(presented);
    const key = this.keys.findByHash(hash);
    if (!key || !sameHash(key.keyHash, hash)) return deny(401, 'UNAUTHENTICATED', 'The API key is not valid.');
    if (key.revokedAt) return deny(401, 'UNAUTHENTICATED', 'The API key has been revoked.');

    const now = this.now();
    const second = Math.floor(now.getTime() / 1000);
    const window = this.windows.get(key.id);
    if (window && window.second === second && window.count >= key.ratePerSecond) {
      // The window is one second; the next one starts within a second.
      return deny(429, 'RATE_LIMITED', `Rate limit of ${key.ratePerSecond} requests per second exceeded.`, {
        'retry-after': '1',
        'ratelimit-limit': String(key.ratePerSecond),
        'ratelimit-remaining': '0',
        'ratelimit-reset': '1',
        'ratelimit-policy': policy(key),
      });
    }
    if (window && window.second === second) window.count++;
    else this.windows.set(key.id, { second, count: 1 });

    const reset = String(secondsToMonthEnd(now));
    const used = this.usage.take(key.id, monthOf(now), key.monthlyQuota);
    if (used === null) {
      return deny(429, 'RATE_LIMITED', `Monthly quota of ${key.monthlyQuota} requests used up; it resets at the start of next month (UTC).`, {
        'retry-after': reset,
        'ratelimit-limit': String(key.monthlyQuota),
        'ratelimit-remaining': '0',
        'ratelimit-reset': reset,
        'ratelimit-policy': policy(key),
      });
    }
    return {
      ok: true,
      key,
      headers: {
        'ratelimit-limit': String(key.monthlyQuota),
        'ratelimit-remaining': String(Math.max(0, key.monthlyQuota - used)),
        'ratelimit-reset': reset,
        'ratelimit-policy': policy(key),
      },
    };
  }
}

/** Both limits, in the IETF RateLimit-Policy form: quota;w=window-seconds. */
const policy = (key: ApiKeyRecord) => `${key.monthlyQuota};w=2592000, ${key.ratePerSecond};w=1`;

function deny(status: number, code: string, detail: string, headers: Record<string, string> = {}): GuardResult {
  const extra: Record<string, string> = status === 401 ? { 'www-authenticate': 'ApiKey header="x-api-key"' } : {};
  return { ok: false, problem: { status, code, detail, headers: { ...headers, ...extra } } };
}
