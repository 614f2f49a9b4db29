import type { ApiKeyRecord } from '../data/repositories/keys.js';
import type { Problem } from '../lib/errors.js';

/**
 * What the key check answers, local or shared (src/cluster): the problems for a missing, bad or
 * revoked key and for each limit, and the RateLimit headers of an allowed request.
 */

/**
 * What a key check counts: a request counts against both the key's per-second rate and its monthly
 * quota; an MCP message against the rate only (its session's housekeeping: initialize, lists,
 * pings), and the calls inside it against the quota only (src/transports/mcp/).
 */
export type Counted = 'request' | 'rate' | 'quota';

export type GuardResult = { ok: true; key: ApiKeyRecord | null; headers: string[] } | { ok: false; problem: Problem };

/** The key check as its callers see it: local (AuthGuard) or shared in Redis (ClusterGuard). */
export interface KeyCheck {
  check(presented: string | string[] | undefined, counted?: Counted): GuardResult | Promise<GuardResult>;
}

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

/**
 * Both limits, in the IETF RateLimit-Policy form: quota;w=window-seconds, where the quota's window
 * is this calendar month (28 to 31 days).
 */
export function policyOf(key: Pick<ApiKeyRecord, 'monthlyQuota' | 'ratePerSecond'>, now: Date): string {
  const days = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
  return `${key.monthlyQuota};w=${days * 86_400}, ${key.ratePerSecond};w=1`;
}

/** What a client without a usable key is told: how to send one, and how to get one. */
const HOW_TO_GET_ONE = 'The server printed a first key when it started with none; more with `npm run keys -- create --name NAME` on the server.';
const NO_KEY = `An API key is required: send it in the x-api-key header. ${HOW_TO_GET_ONE}`;
const BAD_KEY = `The API key is not valid. ${HOW_TO_GET_ONE}`;

export function deny(status: number, code: string, detail: string, headers: string[] = []): GuardResult & { ok: false } {
  const extra = status === 401 ? ['www-authenticate', 'ApiKey header="x-api-key"'] : [];
  return { ok: false, problem: { status, code, detail, headers: [...headers, ...extra] } };
}

/** The presented key's shape: a problem when it is missing or cannot be a key, else null. */
export function malformedKey(presented: string | string[] | undefined): GuardResult | null {
  if (typeof presented !== 'string' || presented.length === 0) return deny(401, 'UNAUTHENTICATED', NO_KEY);
  if (presented.length > 256) return deny(401, 'UNAUTHENTICATED', BAD_KEY);
  return null;
}

export const unknownKey = (): GuardResult => deny(401, 'UNAUTHENTICATED', BAD_KEY);
export const revokedKey = (): GuardResult => deny(401, 'UNAUTHENTICATED', 'The API key has been revoked.');

export function rateLimited(key: Pick<ApiKeyRecord, 'ratePerSecond'>, policy: string): GuardResult {
  // The window is one second; the next one starts within a second.
  return deny(429, 'RATE_LIMITED', `Rate limit of ${key.ratePerSecond} requests per second exceeded.`, [
    'retry-after',
    '1',
    'ratelimit-limit',
    String(key.ratePerSecond),
    'ratelimit-remaining',
    '0',
    'ratelimit-reset',
    '1',
    'ratelimit-policy',
    policy,
  ]);
}

export function quotaUsedUp(key: Pick<ApiKeyRecord, 'monthlyQuota'>, policy: string, now: Date): GuardResult {
  const reset = String(secondsToMonthEnd(now));
  return deny(429, 'RATE_LIMITED', `Monthly quota of ${key.monthlyQuota} requests used up; it resets at the start of next month (UTC).`, [
    'retry-after',
    reset,
    'ratelimit-limit',
    String(key.monthlyQuota),
    'ratelimit-remaining',
    '0',
    'ratelimit-reset',
    reset,
    'ratelimit-policy',
    policy,
  ]);
}

export function allowed(key: ApiKeyRecord, used: number, policy: string, now: Date, quota = String(key.monthlyQuota)): GuardResult {
  return {
    ok: true,
    key,
    headers: [
      'ratelimit-limit',
      quota,
      'ratelimit-remaining',
      String(Math.max(0, key.monthlyQuota - used)),
      'ratelimit-reset',
      String(secondsToMonthEnd(now)),
      'ratelimit-policy',
      policy,
    ],
  };
}

/**
 * Why a key's open streams must end now, or null while it may keep them: it was revoked (or is
 * gone), or its monthly quota is used up. Asked of keys holding streams, without counting a request.
 */
export function standingOf(key: Pick<ApiKeyRecord, 'revokedAt' | 'monthlyQuota'> | undefined, used: number, now: Date): Problem | null {
  if (!key || key.revokedAt) return (revokedKey() as GuardResult & { ok: false }).problem;
  if (used >= key.monthlyQuota) return (quotaUsedUp(key, '', now) as GuardResult & { ok: false }).problem;
  return null;
}
