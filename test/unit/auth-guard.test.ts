import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../src/auth/api-key.js';
import { CostBudget } from '../../src/auth/cost-budget.js';
import { registerEnvKeys } from '../../src/auth/env-keys.js';
import { AuthGuard, monthOf, secondsToMonthEnd, VERSION_CHECK_MS } from '../../src/auth/guard.js';
import { ForbiddenError, hasScope } from '../../src/auth/scopes.js';
import { UsageCounter } from '../../src/auth/usage-counter.js';
import type { Config } from '../../src/lib/config.js';
import { openDatabase, type Db } from '../../src/data/db/open.js';
import { emptyDatabase } from '../helpers/keys-db.js';
import { KeyRepository } from '../../src/data/repositories/keys.js';
import { until } from '../helpers/wait.js';
import { createLogger } from '../../src/lib/logger.js';
import { bearer, presentedKey } from '../../src/auth/presented-key.js';
import { pino } from 'pino';

const silent = createLogger('silent');

/** The key check against a real SQLite file with the real schema; the clock is injected. */

let store: ReturnType<typeof emptyDatabase>;
let db: Db;
let keys: KeyRepository;
let usage: UsageCounter;
let clock: Date;
const now = () => clock;

beforeEach(() => {
  store = emptyDatabase('gateway-guard-');
  db = store.db;
  keys = new KeyRepository(db);
  usage = new UsageCounter(keys, 60_000);
  clock = new Date('2027-02-10T12:00:00.250Z');
});
afterEach(() => {
  usage.close();
  store.remove();
});

const addKey = (key: string, over: { monthlyQuota?: number; ratePerSecond?: number; scopes?: string } = {}) =>
  keys.create({
    name: key.slice(0, 10),
    plan: 'free',
    keyHash: hashApiKey(key),
    createdAt: clock.toISOString(),
    monthlyQuota: 1000,
    ratePerSecond: 5,
    scopes: '',
    ...over,
  });

/** Header pairs as an object; an odd list (a name without a value) fails here, not silently. */
const headers = (pairs: readonly string[]) => {
  expect(pairs.length % 2, `header list ${JSON.stringify(pairs)}`).toBe(0);
  return Object.fromEntries(pairs.flatMap((_, i) => (i % 2 ? [] : [[pairs[i], pairs[i + 1]]])));
};

describe('the key check', () => {
  it('401 without a key, with an unknown, an over-long or a revoked one, with the header that says how to send one', () => {
    const guard = new AuthGuard(keys, usage, now, true);
    addKey('good-key');
    for (const presented of [undefined, '', ['good-key', 'good-key'], 'nope', 'x'.repeat(257)]) {
      const r = guard.check(presented);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.problem).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
        expect(headers(r.problem.headers ?? [])).toEqual({ 'www-authenticate': 'ApiKey header="x-api-key"' });
      }
    }
    for (const none of [undefined, '']) {
      const missing = guard.check(none);
      expect(!missing.ok && missing.problem.detail).toMatch(/^An API key is required: send it in the x-api-key header/);
    }
    const unknown = guard.check('nope');
    expect(!unknown.ok && unknown.problem.detail).toMatch(/^The API key is not valid\./);
    expect(guard.check('good-key').ok).toBe(true);
  });

  it('a 256-character key is still looked up', () => {
    const long = 'k'.repeat(256);
    addKey(long);
    expect(new AuthGuard(keys, usage, now, true).check(long).ok).toBe(true);
  });

  it('each key has its own second: a busy key does not slow another', () => {
    addKey('busy', { ratePerSecond: 1 });
    addKey('calm', { ratePerSecond: 1 });
    const guard = new AuthGuard(keys, usage, now, true);
    expect(guard.check('busy').ok).toBe(true);
    expect(guard.check('busy').ok).toBe(false);
    expect(guard.check('calm').ok).toBe(true);
    clock = new Date(clock.getTime() + 700);
    // 12:00:00.950: still the same second for both keys.
    expect(guard.check('calm').ok).toBe(false);
    clock = new Date(clock.getTime() + 100);
    // 12:00:01.050: a new second, a new window.
    expect(guard.check('calm').ok).toBe(true);
    expect(guard.check('busy').ok).toBe(true);
  });

  it('with AUTH off every request passes without a key or headers', () => {
    expect(new AuthGuard(keys, usage, now, false).check(undefined)).toEqual({ ok: true, key: null, headers: [] });
  });

  it('answers with the quota, what is left, the reset and the policy of both limits', () => {
    addKey('k1', { monthlyQuota: 1000, ratePerSecond: 5 });
    const r = new AuthGuard(keys, usage, now, true).check('k1');
    expect(r.ok && headers(r.headers)).toEqual({
      'ratelimit-limit': '1000',
      'ratelimit-remaining': '999',
      'ratelimit-reset': String(secondsToMonthEnd(clock)),
      // February 2027 has 28 days.
      'ratelimit-policy': `1000;w=${28 * 86_400}, 5;w=1`,
    });
  });

  it('the per-second rate: the sixth request of a second is 429 with Retry-After 1, the next second is fresh', () => {
    addKey('k2', { ratePerSecond: 5 });
    const guard = new AuthGuard(keys, usage, now, true);
    for (let i = 0; i < 5; i++) expect(guard.check('k2').ok).toBe(true);
    const refused = guard.check('k2');
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.problem).toMatchObject({ status: 429, code: 'RATE_LIMITED', detail: 'Rate limit of 5 requests per second exceeded.' });
      expect(headers(refused.problem.headers ?? [])).toEqual({
        'retry-after': '1',
        'ratelimit-limit': '5',
        'ratelimit-remaining': '0',
        'ratelimit-reset': '1',
        'ratelimit-policy': `1000;w=${28 * 86_400}, 5;w=1`,
      });
    }
    clock = new Date(clock.getTime() + 1000);
    expect(guard.check('k2').ok).toBe(true);
    // A refused request did not count against the month.
    const r = guard.check('k2');
    expect(r.ok && headers(r.headers)['ratelimit-remaining']).toBe(String(1000 - 7));
    // The limit holds in every later second too, not only the first one.
    for (let i = 0; i < 3; i++) expect(guard.check('k2').ok).toBe(true);
    expect(guard.check('k2').ok).toBe(false);
    clock = new Date(clock.getTime() + 1000);
    for (let i = 0; i < 5; i++) expect(guard.check('k2').ok).toBe(true);
    expect(guard.check('k2').ok).toBe(false);
  });

  it('the monthly quota: exactly `quota` requests, then 429 until the month turns', () => {
    addKey('k3', { monthlyQuota: 3, ratePerSecond: 100 });
    const guard = new AuthGuard(keys, usage, now, true);
    const remaining = [1, 2, 3].map(() => {
      const r = guard.check('k3');
      return r.ok ? headers(r.headers)['ratelimit-remaining'] : 'refused';
    });
    expect(remaining).toEqual(['2', '1', '0']);
    const over = guard.check('k3');
    expect(over.ok).toBe(false);
    if (!over.ok) {
      expect(over.problem.status).toBe(429);
      expect(over.problem.code).toBe('RATE_LIMITED');
      expect(over.problem.detail).toBe('Monthly quota of 3 requests used up; it resets at the start of next month (UTC).');
      const reset = String(secondsToMonthEnd(clock));
      expect(headers(over.problem.headers ?? [])).toEqual({
        'retry-after': reset,
        'ratelimit-limit': '3',
        'ratelimit-remaining': '0',
        'ratelimit-reset': reset,
        'ratelimit-policy': `3;w=${28 * 86_400}, 100;w=1`,
      });
    }
    clock = new Date('2027-03-01T00:00:00Z');
    const march = guard.check('k3');
    expect(march.ok && headers(march.headers)).toMatchObject({ 'ratelimit-remaining': '2', 'ratelimit-policy': `3;w=${31 * 86_400}, 100;w=1` });
  });

  it('counts persist through the usage table and are read back by a new counter', () => {
    addKey('k4', { monthlyQuota: 10 });
    const guard = new AuthGuard(keys, usage, now, true);
    guard.check('k4');
    guard.check('k4');
    usage.flush();
    const id = keys.findByHash(hashApiKey('k4'))!.id;
    expect(keys.usage(id, '2027-02')).toBe(2);
    const fresh = new UsageCounter(keys, 60_000);
    expect(fresh.take(id, '2027-02', 10)).toBe(3);
    expect(fresh.countsFor('2027-02')).toEqual([{ keyId: id, requests: 3 }]);
    expect(fresh.countsFor('2027-03')).toEqual([]);
    fresh.close();
    expect(keys.usage(id, '2027-02')).toBe(3);
  });

  it("a key's unwritten count is written at once when it reaches the key's per-second rate, else by the timer", async () => {
    addKey('k6', { monthlyQuota: 100 });
    const id = keys.findByHash(hashApiKey('k6'))!.id;
    const counter = new UsageCounter(keys, 3_600_000);
    counter.take(id, '2027-02', 100, 3);
    counter.take(id, '2027-02', 100, 3);
    expect(keys.usage(id, '2027-02')).toBe(0);
    counter.take(id, '2027-02', 100, 3);
    expect(keys.usage(id, '2027-02')).toBe(3);
    counter.close();
    // The timer writes what is pending without anyone asking.
    const ticking = new UsageCounter(keys, 20);
    ticking.take(id, '2027-02', 100);
    expect(keys.usage(id, '2027-02')).toBe(3);
    await until(
      async () => keys.usage(id, '2027-02'),
      (n) => n === 4,
      5000,
      10,
    );
    ticking.close();
  });

  it('a key revoked by another connection is refused once the database is asked again (every VERSION_CHECK_MS)', () => {
    addKey('k5');
    const guard = new AuthGuard(keys, usage, now, true);
    expect(guard.check('k5').ok).toBe(true);
    const other = new KeyRepository(openDatabase(store.file));
    other.revoke([other.findByName('k5')!], clock.toISOString());
    // Within the interval the key is still the one in memory: the database is not asked per request.
    clock = new Date(clock.getTime() + VERSION_CHECK_MS - 1);
    expect(guard.check('k5').ok).toBe(true);
    clock = new Date(clock.getTime() + 1);
    const revoked = guard.check('k5');
    expect(!revoked.ok && revoked.problem).toMatchObject({ status: 401, code: 'UNAUTHENTICATED', detail: 'The API key has been revoked.' });
    // A clock set back is a change of time as well: the database is asked again.
    addKey('k6');
    expect(guard.check('k6').ok).toBe(true);
    other.revoke([other.findByName('k6')!], clock.toISOString());
    clock = new Date(clock.getTime() - VERSION_CHECK_MS);
    expect(guard.check('k6').ok).toBe(false);
  });
});

describe('months', () => {
  it('the month of an instant, and the seconds until the next one begins (at least 1)', () => {
    expect(monthOf(new Date('2027-12-31T23:59:59Z'))).toBe('2027-12');
    expect(monthOf(new Date('2028-01-01T00:00:00Z'))).toBe('2028-01');
    // Months of one year are told apart (the month names are remembered by year and month).
    expect(monthOf(new Date('2031-01-20T00:00:00Z'))).toBe('2031-01');
    expect(monthOf(new Date('2031-02-20T00:00:00Z'))).toBe('2031-02');
    expect(monthOf(new Date('2016-02-10T00:00:00Z'))).toBe('2016-02');
    expect(secondsToMonthEnd(new Date('2027-12-31T23:59:00Z'))).toBe(60);
    expect(secondsToMonthEnd(new Date('2027-12-31T23:59:59.500Z'))).toBe(1);
    expect(secondsToMonthEnd(new Date('2027-02-01T00:00:00Z'))).toBe(28 * 86_400);
  });
});

describe('keys, scopes and environment keys', () => {
  it('keys are szg_ and 43 base64url characters, different every time; only the SHA-256 is kept', () => {
    const a = generateApiKey();
    expect(a).toMatch(/^szg_[A-Za-z0-9_-]{43}$/);
    expect(generateApiKey()).not.toBe(a);
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('scopes are space-separated words', () => {
    expect(hasScope('admin', 'admin')).toBe(true);
    expect(hasScope('read admin', 'admin')).toBe(true);
    expect(hasScope('administrator', 'admin')).toBe(false);
    expect(hasScope('', 'admin')).toBe(false);
    const e = new ForbiddenError('admin', 'Starting a sync run');
    expect(e.message).toBe('Starting a sync run needs a key with the admin scope (npm run keys -- create --name NAME --scope admin).');
    expect(e.extensions).toEqual({ code: 'FORBIDDEN', status: 403 });
  });

  it('API_KEYS and API_ADMIN_KEYS become keys with the environment limits; a key in both is an admin', async () => {
    const config = { apiKeys: ['dev-a', 'both'], apiAdminKeys: ['both', 'ops'], apiKeysQuota: 77, apiKeysRate: 9 } as unknown as Config;
    await registerEnvKeys(keys, config, now, silent);
    const scope = (k: string) => keys.findByHash(hashApiKey(k));
    expect(scope('dev-a')).toMatchObject({
      scopes: '',
      monthlyQuota: 77,
      ratePerSecond: 9,
      plan: 'development',
      origin: 'env',
      revokedAt: null,
      name: `env-${hashApiKey('dev-a').slice(0, 12)}`,
    });
    expect(scope('both')!.scopes).toBe('admin');
    expect(scope('ops')!.scopes).toBe('admin');
    expect(keys.count()).toBe(3);
    await registerEnvKeys(keys, { ...config, apiKeysQuota: 5 } as Config, now, silent);
    expect(keys.count()).toBe(3);
    expect(scope('dev-a')!.monthlyQuota).toBe(5);
  });

  it('a key the environment no longer names is retired at the next start, and active again when it names it again; keys made otherwise are never touched', async () => {
    const config = { apiKeys: ['envkey-aaaaaaaaaaaaaaaa', 'envkey-bbbbbbbbbbbbbbbb'], apiAdminKeys: [], apiKeysQuota: 10, apiKeysRate: 1 } as unknown as Config;
    keys.create({
      name: 'made-by-cli',
      plan: 'free',
      keyHash: hashApiKey('cli-key-cccccccccccccccc'),
      createdAt: '',
      monthlyQuota: 1,
      ratePerSecond: 1,
      scopes: '',
    });
    await registerEnvKeys(keys, config, now, silent);
    const state = (k: string) => keys.findByHash(hashApiKey(k))!.revokedAt;
    await registerEnvKeys(keys, { ...config, apiKeys: ['envkey-bbbbbbbbbbbbbbbb'] } as Config, now, silent);
    expect(state('envkey-aaaaaaaaaaaaaaaa')).toBe(now().toISOString());
    expect(state('envkey-bbbbbbbbbbbbbbbb')).toBeNull();
    expect(state('cli-key-cccccccccccccccc')).toBeNull();
    // Started with no keys at all: every key of the environment goes, the CLI's stays.
    await registerEnvKeys(keys, { ...config, apiKeys: [] } as Config, now, silent);
    expect(state('envkey-bbbbbbbbbbbbbbbb')).not.toBeNull();
    expect(state('cli-key-cccccccccccccccc')).toBeNull();
    await registerEnvKeys(keys, config, now, silent);
    expect(state('envkey-aaaaaaaaaaaaaaaa')).toBeNull();
    // A secret made with the CLI and revoked stays revoked even if the environment names it.
    keys.revoke([keys.findByName('made-by-cli')!], '2027-01-01T00:00:00.000Z');
    await registerEnvKeys(keys, { ...config, apiKeys: ['cli-key-cccccccccccccccc'] } as Config, now, silent);
    expect(state('cli-key-cccccccccccccccc')).toBe('2027-01-01T00:00:00.000Z');
  });
});

describe('retiring keys the environment no longer names', () => {
  /** A logger whose lines the test reads. */
  const recording = () => {
    const lines: { retired?: number; msg: string }[] = [];
    return { lines, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }) };
  };
  const env = (apiKeys: string[]) => ({ apiKeys, apiAdminKeys: [], apiKeysQuota: 10, apiKeysRate: 1 }) as unknown as Config;

  it('says how many went, in words for one and for several; says nothing when none did', async () => {
    const { lines, logger } = recording();
    await registerEnvKeys(keys, env(['envkey-1111111111111111', 'envkey-2222222222222222', 'envkey-3333333333333333']), now, logger);
    expect(lines).toEqual([]);
    await registerEnvKeys(keys, env(['envkey-1111111111111111', 'envkey-2222222222222222']), now, logger);
    expect(lines.map(({ retired, msg }) => ({ retired, msg }))).toEqual([
      { retired: 1, msg: "1 key from an earlier API_KEYS or API_ADMIN_KEYS retired: no server's environment names it any more" },
    ]);
    await registerEnvKeys(keys, env([]), now, logger);
    expect(lines.slice(1).map(({ retired, msg }) => ({ retired, msg }))).toEqual([
      { retired: 2, msg: "2 keys from an earlier API_KEYS or API_ADMIN_KEYS retired: no server's environment names them any more" },
    ]);
    // Their rows say where they came from.
    expect(keys.findByHash(hashApiKey('envkey-1111111111111111'))!.origin).toBe('env');
  });

  it('a key of the environment an operator revoked stays revoked while the environment names it, and each start says so', async () => {
    const { lines, logger } = recording();
    await registerEnvKeys(keys, env(['envkey-4444444444444444']), now, logger);
    const key = keys.findByHash(hashApiKey('envkey-4444444444444444'))!;
    expect(keys.revoke([key], '2027-01-02T00:00:00.000Z')).toEqual([]);
    await registerEnvKeys(keys, env(['envkey-4444444444444444']), now, logger);
    expect(keys.findByHash(key.keyHash)).toMatchObject({ revokedAt: '2027-01-02T00:00:00.000Z', revokedBy: 'operator' });
    expect(lines).toMatchObject([
      {
        level: 40,
        keys: [{ id: key.id, name: key.name }],
        msg: `API_KEYS or API_ADMIN_KEYS names key "${key.name}" (id ${key.id}), revoked with npm run keys: it stays revoked; remove it from the environment`,
      },
    ]);
    // One the environment retired comes back when named again.
    await registerEnvKeys(keys, env([]), now, logger);
    await registerEnvKeys(keys, env(['envkey-5555555555555555']), now, logger);
    expect(keys.findByHash(hashApiKey('envkey-5555555555555555'))!.revokedAt).toBeNull();
    await registerEnvKeys(keys, env([]), now, logger);
    expect(keys.findByHash(hashApiKey('envkey-5555555555555555'))!.revokedBy).toBe('environment');
    await registerEnvKeys(keys, env(['envkey-5555555555555555']), now, logger);
    expect(keys.findByHash(hashApiKey('envkey-5555555555555555'))).toMatchObject({ revokedAt: null, revokedBy: null });
  });
});

describe('the key a request presents', () => {
  it('x-api-key first; else the token of an Authorization: Bearer header, trimmed; nothing else counts', () => {
    expect(presentedKey({ 'x-api-key': 'szg_a' })).toBe('szg_a');
    expect(presentedKey({ 'x-api-key': 'szg_a', authorization: 'Bearer szg_b' })).toBe('szg_a');
    expect(presentedKey({ authorization: 'Bearer  szg_b ' })).toBe('szg_b');
    expect(presentedKey({ authorization: 'bearer szg_b' })).toBeUndefined();
    expect(presentedKey({ authorization: 'Basic c3pnX2I6' })).toBeUndefined();
    expect(presentedKey({ authorization: 'Bearer' })).toBeUndefined();
    expect(presentedKey({})).toBeUndefined();
    expect(bearer(['Bearer szg_b'])).toBeUndefined();
    expect(bearer(undefined)).toBeUndefined();
  });
});

describe('the cost budget', () => {
  /** A budget's clock (ms), each test's own: it stands still until the test moves it. */
  const clockAt = (iso: string) => {
    let t = Date.parse(iso);
    return { now: () => t, advance: (ms: number) => void (t += ms) };
  };

  it('a key may spend rate × units × window; over it is 429 with the headers, and a refusal spends nothing', async () => {
    const clock = clockAt('2027-01-15T12:00:00Z');
    const budget = new CostBudget(100, 1, clock.now);
    const holder = { id: 1, ratePerSecond: 2 };
    expect(budget.budgetOf(holder)).toBe(200);
    expect(await budget.charge(holder, 150)).toBeNull();
    const refused = await budget.charge(holder, 60);
    expect(refused).not.toBeNull();
    expect(refused!.extensions).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(refused!.message).toMatch(/^This request costs 60 and the key's cost budget of 200 per 1 s has 50 left; try again in 1 s/);
    expect(headers(refused!.headers)).toEqual({ 'retry-after': '1', 'ratelimit-limit': '200', 'ratelimit-remaining': '50', 'ratelimit-reset': '1' });
    expect(await budget.charge(holder, 50)).toBeNull();
    expect(await budget.charge(holder, 1)).not.toBeNull();
  });

  it('small charges are drawn from a slice of 1 % taken ahead: settled at once, and still no more than the budget', async () => {
    const clock = clockAt('2027-01-15T12:00:00Z');
    const budget = new CostBudget(100, 60, clock.now);
    const holder = { id: 7, ratePerSecond: 10 };
    expect(budget.budgetOf(holder)).toBe(60_000);
    // The first small charge draws a slice of 600 (a promise); the next 599 units need none.
    const first = budget.charge(holder, 1);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBeNull();
    for (let i = 0; i < 599; i++) expect(budget.charge(holder, 1)).toBeNull();
    expect(budget.charge(holder, 1)).toBeInstanceOf(Promise);
    // Spend the rest: exactly the budget in all, then refused.
    let allowed = 601;
    for (;;) {
      if ((await budget.charge(holder, 1)) !== null) break;
      allowed++;
    }
    expect(allowed).toBe(60_000);
  });

  it('a budget that is not a whole number of slices: the part left after the last slice is still spent, charge by charge', async () => {
    const clock = clockAt('2027-01-15T12:00:00Z');
    // 1,201 x 1 x 50 = 60,050 units: 100 slices of 600, then 50 that no slice fits.
    const budget = new CostBudget(1201, 50, clock.now);
    const holder = { id: 9, ratePerSecond: 1 };
    let allowed = 0;
    for (;;) {
      if ((await budget.charge(holder, 1)) !== null) break;
      allowed++;
    }
    expect(allowed).toBe(60_050);
  });

  it('keys spend their own budgets; no key or no cost is not counted', async () => {
    const clock = clockAt('2027-01-15T12:00:00Z');
    const budget = new CostBudget(10, 60, clock.now);
    expect(await budget.charge({ id: 1, ratePerSecond: 1 }, 600)).toBeNull();
    expect(await budget.charge({ id: 2, ratePerSecond: 1 }, 600)).toBeNull();
    // Nothing to count: answered at once, no slice drawn.
    expect(budget.charge({ id: 1, ratePerSecond: 1 }, 0)).toBeNull();
    expect(await budget.charge(null, 1e9)).toBeNull();
    const r = await budget.charge({ id: 1, ratePerSecond: 1 }, 1);
    // Windows are whole minutes of the server's clock: at noon sharp, the next is 60 s away.
    expect(r!.headers[1]).toBe('60');
    clock.advance(45_000);
    expect((await budget.charge({ id: 1, ratePerSecond: 1 }, 1))!.headers[1]).toBe('15');
  });

  it('status: the budget, what is left of it now (the window and the unspent slice), and the rate it comes back at', async () => {
    const clock = clockAt('2027-01-15T14:00:00Z');
    // 10 requests/s x 100 units x 60 s: 60,000 a minute, 1,000 a second back.
    const budget = new CostBudget(100, 60, clock.now);
    const holder = { id: 21, ratePerSecond: 10 };
    expect(budget.status(holder)).toEqual({ maximumAvailable: 60_000, currentlyAvailable: 60_000, restoreRate: 1000 });
    // More than a slice (600): counted exactly.
    expect(await budget.charge(holder, 1000)).toBeNull();
    expect(budget.status(holder)).toEqual({ maximumAvailable: 60_000, currentlyAvailable: 59_000, restoreRate: 1000 });
    // A small charge draws a slice of 600: 58,400 left in the window, 599 of the slice unspent.
    expect(await budget.charge(holder, 1)).toBeNull();
    expect(budget.status(holder).currentlyAvailable).toBe(58_999);
    // The window ends (a minute of the clock): the whole budget is back, the slice gone with it.
    clock.advance(60_000);
    expect(budget.status(holder).currentlyAvailable).toBe(60_000);
  });

  it("a slice drawn in a new window starts empty: what the last window's slice left, up to its very end, is not carried over", async () => {
    const clock = clockAt('2027-01-15T15:00:00Z');
    const budget = new CostBudget(100, 60, clock.now);
    const holder = { id: 31, ratePerSecond: 10 };
    // A slice of 600 drawn at the window's start, 599 of it unspent when the window ends.
    expect(await budget.charge(holder, 1)).toBeNull();
    expect(budget.status(holder).currentlyAvailable).toBe(59_999);
    // The first instant of the next window (the slice's end): a new slice of 600, 599 left of it, nothing of the old one.
    clock.advance(60_000);
    expect(await budget.charge(holder, 1)).toBeNull();
    expect(budget.status(holder).currentlyAvailable).toBe(59_999);
  });

  it('when the window ends the whole budget is back, and a slice drawn in the last window is not spent in the next', async () => {
    const clock = clockAt('2027-01-15T13:00:00Z');
    const budget = new CostBudget(100, 60, clock.now);
    const holder = { id: 11, ratePerSecond: 10 };
    // 60,000 units a minute: spend them all (a slice of 600 drawn by the first, its rest spent last).
    expect(await budget.charge(holder, 1)).toBeNull();
    expect(await budget.charge(holder, 59_400)).toBeNull();
    expect(budget.status(holder).currentlyAvailable).toBe(599);
    expect(budget.charge(holder, 599)).toBeNull();
    expect(budget.status(holder).currentlyAvailable).toBe(0);
    expect(await budget.charge(holder, 1)).not.toBeNull();
    clock.advance(60_000);
    expect(budget.status(holder).currentlyAvailable).toBe(60_000);
    // A slice of the past window (drawn again just before it ended) is no use after it: the charge asks the limiter.
    clock.advance(-1);
    const holder2 = { id: 12, ratePerSecond: 10 };
    expect(await budget.charge(holder2, 1)).toBeNull();
    expect(budget.charge(holder2, 1)).toBeNull();
    clock.advance(1);
    expect(budget.charge(holder2, 1)).toBeInstanceOf(Promise);
    expect(await budget.charge(holder, 60_000)).toBeNull();
  });
});
