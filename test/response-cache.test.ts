import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import type { Config } from '../src/lib/config.js';
import { expectProblem, getJson, startTestServer, privateDatabase, SYNC_RESORTS } from './helpers/server.js';
import { startFakeUpstream, type FakeUpstream } from './helpers/fake-upstream.js';
import { until } from './helpers/wait.js';
import { cliCommand } from './helpers/process.js';
import { bundle } from './helpers/bundle.js';

/**
 * Answers as versions of the data: every GET answer is a pure function of its path, parameters
 * and the data version, so it may be kept and revalidated. These tests change each input of the
 * version and check that the answer and its ETag change with it, and nothing else does.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const DAY = '2027-01-15';

const privateDb = (): string => privateDatabase('gateway-cache-');

describe('ETags and conditional requests', () => {
  let app: RunningApp;
  let now: Date;
  const apiKey = 'szg_cache_test_key';
  const adminKey = 'szg_cache_admin_key';
  // Each test has its own server, clock and cache: none depends on what another asked before it.
  beforeEach(async () => {
    now = new Date(`${DAY}T12:00:00Z`);
    app = await startTestServer({
      privateDb: true,
      now: () => now,
      config: { apiKeys: [apiKey, adminKey], apiAdminKeys: [adminKey], apiKeysQuota: 1000, apiKeysRate: 1000 },
    });
  });
  afterEach(() => app.close());

  /** The response cache's counters, from /metrics. */
  const cacheCounts = async () => {
    const text = await (await fetch(`${app.url}/metrics`, { headers: { 'x-api-key': adminKey } })).text();
    const count = (result: string) => Number(text.match(new RegExp(`^response_cache_lookups\\{result="${result}"\\} (\\d+)`, 'm'))![1]);
    return { hit: count('hit'), miss: count('miss'), stored: count('stored') };
  };

  it('every GET answer has a strong ETag that is the same for the same answer; the second stores it, the third is a hit', async () => {
    for (const p of ['/api/zip/90210', '/api/resorts/vail', '/api/states', '/api/conditions/top-snow']) {
      const before = await cacheCounts();
      const a = await getJson(app, p, { apiKey });
      const afterFirst = await cacheCounts();
      const b = await getJson(app, p, { apiKey });
      const afterSecond = await cacheCounts();
      const c = await getJson(app, p, { apiKey });
      const afterThird = await cacheCounts();
      // Answers are stored on the second request for them (a one-off is never kept), served from the third.
      expect(afterFirst, p).toEqual({ hit: before.hit, miss: before.miss + 1, stored: before.stored });
      expect(afterSecond, p).toEqual({ hit: before.hit, miss: before.miss + 2, stored: before.stored + 1 });
      expect(afterThird, p).toEqual({ hit: before.hit + 1, miss: before.miss + 2, stored: before.stored + 1 });
      expect(a.status, p).toBe(200);
      // A strong tag per representation: the body's hash, with .gz or .br when compressed.
      expect(a.headers.get('etag'), p).toMatch(/^"[\w-]{27}(\.gz|\.br)?"$/);
      expect(a.headers.get('cache-control'), p).toMatch(/^private, max-age=\d+, stale-while-revalidate=\d+$/);
      // The first answer was computed, the third came from the cache: the same bytes, the same tag.
      expect(c.headers.get('etag')).toBe(a.headers.get('etag'));
      expect(JSON.stringify(c.body)).toBe(JSON.stringify(a.body));
      expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    }
  });

  it('If-None-Match answers 304 without a body, and still counts against the quota', async () => {
    const first = await getJson(app, '/api/resorts/zermatt', { apiKey });
    const etag = first.headers.get('etag')!;
    const remaining = Number(first.headers.get('ratelimit-remaining'));
    const res = await fetch(`${app.url}/api/resorts/zermatt`, { headers: { 'x-api-key': apiKey, 'if-none-match': etag } });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe('');
    expect(res.headers.get('etag')).toBe(etag);
    expect(Number(res.headers.get('ratelimit-remaining'))).toBe(remaining - 1);
    // A list of tags, a weak tag and * match too; another tag does not.
    for (const header of [`"nope", ${etag}`, `W/${etag}`, '*']) {
      expect((await fetch(`${app.url}/api/resorts/zermatt`, { headers: { 'x-api-key': apiKey, 'if-none-match': header } })).status).toBe(304);
    }
    const other = await fetch(`${app.url}/api/resorts/zermatt`, { headers: { 'x-api-key': apiKey, 'if-none-match': '"nope"' } });
    expect(other.status).toBe(200);
  });

  it('HEAD answers with the headers of GET and no body', async () => {
    const get = await getJson(app, '/api/zip/10001', { apiKey });
    const head = await fetch(`${app.url}/api/zip/10001`, { method: 'HEAD', headers: { 'x-api-key': apiKey } });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(await head.text()).toBe('');
  });

  it('a new hour and a new day change resort answers and their ETags; ZIP answers stay', async () => {
    now = new Date(`${DAY}T12:00:00Z`);
    const zip = await getJson(app, '/api/zip/90210', { apiKey });
    const noon = await getJson(app, '/api/resorts/vail', { apiKey });
    now = new Date(`${DAY}T12:59:00Z`);
    const sameHour = await getJson(app, '/api/resorts/vail', { apiKey });
    expect(sameHour.headers.get('etag')).toBe(noon.headers.get('etag'));
    now = new Date(`${DAY}T13:00:00Z`);
    const nextHour = await getJson(app, '/api/resorts/vail', { apiKey });
    expect(nextHour.body.weather.time).toBe(`${DAY}T13:00:00.000Z`);
    expect(nextHour.headers.get('etag')).not.toBe(noon.headers.get('etag'));
    now = new Date('2027-01-16T13:00:00Z');
    const nextDay = await getJson(app, '/api/resorts/vail', { apiKey });
    expect(nextDay.body.date).toBe('2027-01-16');
    expect(nextDay.headers.get('etag')).not.toBe(nextHour.headers.get('etag'));
    expect((await getJson(app, '/api/zip/90210', { apiKey })).headers.get('etag')).toBe(zip.headers.get('etag'));
  });

  it('a kept answer says how long it stays true: resort data until the next hour, ZIP data a day; a 304 says the same', async () => {
    now = new Date(`${DAY}T12:45:30Z`);
    const resort = await getJson(app, '/api/resorts/vail', { apiKey });
    expect(resort.headers.get('cache-control')).toBe('private, max-age=870, stale-while-revalidate=60');
    const graphqlGet = await fetch(`${app.url}/graphql?query=${encodeURIComponent('{ resort(id: "vail") { conditions { status } } }')}`, {
      headers: { 'x-api-key': apiKey },
    });
    expect(graphqlGet.headers.get('cache-control')).toBe('private, max-age=870, stale-while-revalidate=60');
    now = new Date(`${DAY}T12:59:59Z`);
    const revalidated = await fetch(`${app.url}/api/resorts/vail`, { headers: { 'x-api-key': apiKey, 'if-none-match': resort.headers.get('etag')! } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('cache-control')).toBe('private, max-age=1, stale-while-revalidate=60');
    for (const p of ['/api/zip/90210', '/api/states', '/api/zip/80424/nearby']) {
      expect((await getJson(app, p, { apiKey })).headers.get('cache-control'), p).toBe('private, max-age=86400, stale-while-revalidate=86400');
    }
    // What changes from one request to the next is never kept.
    expect((await getJson(app, '/api/sync/status', { apiKey })).headers.get('cache-control')).toBe('no-store');
  });

  it('a 401 or 429 is never answered from the cache, and errors carry no ETag', async () => {
    // Kept (asked twice) and served from the cache (the third ask is a hit) before the bad key asks.
    let ok = await getJson(app, '/api/zip/05672', { apiKey });
    ok = await getJson(app, '/api/zip/05672', { apiKey });
    ok = await getJson(app, '/api/zip/05672', { apiKey });
    expect(ok.status).toBe(200);
    const kept = await cacheCounts();
    expect(kept.stored).toBeGreaterThanOrEqual(1);
    expect(kept.hit).toBeGreaterThanOrEqual(1);
    const refusals: Record<string, string>[] = [
      { 'x-api-key': 'szg_not_a_key' },
      { 'x-api-key': 'szg_not_a_key', 'if-none-match': ok.headers.get('etag')! },
      {},
    ];
    for (const headers of refusals) {
      const refused = await fetch(`${app.url}/api/zip/05672`, { headers });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { code: string }).code).toBe('UNAUTHENTICATED');
      expect(refused.headers.get('etag')).toBeNull();
    }
    // The refusals looked nothing up: the cache's counters are where the kept answer left them.
    expect(await cacheCounts()).toEqual(kept);
    const missing = await getJson(app, '/api/zip/00001', { apiKey });
    expectProblem(missing, 404);
    expect(missing.headers.get('etag')).toBeNull();
    expect(missing.headers.get('cache-control')).toBe('no-store');

    const tight = await startTestServer({ privateDb: true, config: { apiKeys: ['szg_cache_tight'], apiKeysQuota: 2, apiKeysRate: 1000 } });
    try {
      for (let i = 0; i < 2; i++) expect((await getJson(tight, '/api/zip/05672', { apiKey: 'szg_cache_tight' })).status).toBe(200);
      const over = await getJson(tight, '/api/zip/05672', { apiKey: 'szg_cache_tight', headers: { 'if-none-match': ok.headers.get('etag')! } });
      expect(expectProblem(over, 429).code).toBe('RATE_LIMITED');
      expect(over.headers.get('etag')).toBeNull();
    } finally {
      await tight.close();
    }
  });
});

describe('how long a client may keep an answer, with sync runs scheduled', () => {
  it('resort answers stay true until the next scheduled run when it comes before the next hour', async () => {
    const app = await startTestServer({ privateDb: true, now: () => new Date(`${DAY}T12:45:30Z`), config: { syncIntervalMinutes: 5 } });
    try {
      expect((await getJson(app, '/api/resorts/vail')).headers.get('cache-control')).toBe('private, max-age=300, stale-while-revalidate=60');
      expect((await getJson(app, '/api/zip/90210')).headers.get('cache-control')).toBe('private, max-age=86400, stale-while-revalidate=86400');
    } finally {
      await app.close();
    }
  });
});

describe('data versions that come from outside the request', () => {
  let fake: FakeUpstream;
  beforeAll(async () => {
    fake = await startFakeUpstream({ today: DAY });
  });
  afterAll(() => fake.close());

  it('a sync publish changes the answer and its ETag', async () => {
    const meteo: Partial<Config> = {
      provider: 'open-meteo',
      openMeteo: { forecast: `${fake.url}/v1/forecast`, archive: `${fake.url}/v1/archive` },
      // Time-outs no busy machine reaches: this test is about the publish, and every resort must be in it.
      upstream: { timeoutMs: 60_000, retries: 0, concurrency: 8, backoffMs: 5, resetTimeoutMs: 60_000, maxBytes: 8_000_000 },
    };
    // The resorts a sync needs: this test is about the publish, not the catalogue's size.
    const dbPath = privateDatabase('gateway-cache-', { resorts: SYNC_RESORTS });
    // The simulated window for the day first: the data the run replaces.
    await (await startTestServer({ dbPath, now: () => new Date(`${DAY}T12:00:00Z`) })).close();
    const app = await startTestServer({ dbPath, now: () => new Date(`${DAY}T12:00:00Z`), config: meteo });
    try {
      const before = await getJson(app, '/api/resorts/vail');
      expect(before.body.source).toBe('simulated');
      expect((await getJson(app, '/api/resorts/vail')).headers.get('etag')).toBe(before.headers.get('etag'));
      expect((await getJson(app, '/api/sync/run', { method: 'POST' })).status).toBe(200);
      await until(
        () => getJson(app, '/api/sync/status').then((r) => r.body),
        (s) => s.state === 'IDLE' && s.lastRun?.status === 'SUCCEEDED',
      );
      const after = await getJson(app, '/api/resorts/vail');
      expect(after.body.source).toBe('open-meteo');
      expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
      // The old tag no longer matches: a client revalidating gets the new answer.
      const revalidated = await fetch(`${app.url}/api/resorts/vail`, {
        headers: { 'x-api-key': 'szg_test_key_for_the_suite', 'if-none-match': before.headers.get('etag')! },
      });
      expect(revalidated.status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('an import changes the answer and its ETag (the server serves it after a restart)', async () => {
    const dbPath = privateDb();
    const first = await startTestServer({ dbPath });
    const before = await getJson(first, '/api/resorts?country=AT&limit=200');
    await first.close();
    const r = spawnSync(...cliCommand('import', path.join(ROOT, 'test', 'fixtures', 'openskimap', 'ski_areas.geojson')), {
      cwd: ROOT,
      env: { ...process.env, DB_PATH: dbPath },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const second = await startTestServer({ dbPath });
    try {
      const after = await getJson(second, '/api/resorts?country=AT&limit=200');
      expect(after.body.total).toBeGreaterThan(before.body.total);
      expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    } finally {
      await second.close();
    }
  });
});

describe('the cache switched off, and answers across restarts', () => {
  const adminKey = 'szg_cache_off_admin';
  const lookups = async (app: RunningApp) => {
    const text = await (await fetch(`${app.url}/metrics`, { headers: { 'x-api-key': adminKey } })).text();
    return Number(text.match(/^response_cache_lookups\{result="stored"\} (\d+)/m)![1]);
  };

  it('RESPONSE_CACHE_MB bounds the bytes kept; once full, an answer asked for more often than the least recently used one replaces it', async () => {
    const { loadConfig } = await bundle();
    const limit = loadConfig({ RESPONSE_CACHE_MB: '1' }).responseCacheBytes;
    expect(limit).toBe(1024 * 1024);
    const app = await startTestServer({ config: { responseCacheBytes: limit, apiKeys: [adminKey], apiAdminKeys: [adminKey] } });
    try {
      const counts = async () => {
        const text = await (await fetch(`${app.url}/metrics`, { headers: { 'x-api-key': adminKey } })).text();
        const n = (re: RegExp) => Number(text.match(re)![1]);
        return {
          hit: n(/^response_cache_lookups\{result="hit"\} (\d+)/m),
          miss: n(/^response_cache_lookups\{result="miss"\} (\d+)/m),
          stored: n(/^response_cache_lookups\{result="stored"\} (\d+)/m),
          declined: n(/^response_cache_lookups\{result="declined"\} (\d+)/m),
          bytes: n(/^response_cache_bytes (\d+)/m),
        };
      };
      // About 210–220 KB each (1,000 ZIPs as they are, not compressed): four fit in 1 MiB, five do not.
      const page = (state: string) =>
        fetch(`${app.url}/api/states/${state}/zipcodes?limit=1000`, { headers: { 'x-api-key': adminKey, 'accept-encoding': 'identity' } }).then(async (r) => {
          expect(r.status).toBe(200);
          return (await r.text()).length;
        });
      const sizes = [await page('CA')];
      await page('CA');
      for (const state of ['TX', 'NY', 'PA']) {
        // CA is used again before each newcomer: it is never the least recently used.
        await page('CA');
        sizes.push(await page(state));
        await page(state);
      }
      expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(limit - 4 * 1000);
      const full = await counts();
      expect(full.stored).toBe(4);
      expect(full.bytes).toBeLessThanOrEqual(limit);
      // IL asked for twice, as often as TX (the least recently used, asked for twice): turned away.
      await page('CA');
      // With the four, IL does not fit: one must go for it.
      expect(sizes.reduce((a, b) => a + b, 0) + (await page('IL'))).toBeGreaterThan(limit);
      await page('IL');
      const declined = await counts();
      expect(declined.stored).toBe(full.stored);
      expect(declined.declined).toBe(full.declined + 2);
      // A third and fourth time: three asks before against TX's two, so IL is kept and TX goes.
      await page('IL');
      await page('IL');
      const kept = await counts();
      expect(kept.stored).toBe(full.stored + 1);
      expect(kept.bytes).toBeLessThanOrEqual(limit);
      await page('TX');
      expect((await counts()).miss, 'TX, the least recently used, was evicted').toBe(kept.miss + 1);
      for (const state of ['IL', 'CA']) {
        const before = await counts();
        await page(state);
        expect((await counts()).hit, `${state} is kept`).toBe(before.hit + 1);
      }
    } finally {
      await app.close();
    }
  });

  it('RESPONSE_CACHE_MB=0 keeps nothing, and answers are the same', async () => {
    const { loadConfig } = await bundle();
    const off = loadConfig({ RESPONSE_CACHE_MB: '0' });
    expect(off.responseCacheBytes).toBe(0);
    const app = await startTestServer({ config: { responseCacheBytes: off.responseCacheBytes, apiKeys: [adminKey], apiAdminKeys: [adminKey] } });
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await getJson(app, '/api/resorts/vail', { apiKey: adminKey }));
      expect(await lookups(app)).toBe(0);
      expect(new Set(answers.map((a) => a.headers.get('etag'))).size).toBe(1);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    } finally {
      await app.close();
    }
  });

  it('an answer has the same ETag after a restart (a hash of the body, not of the process)', async () => {
    const dbPath = privateDb();
    const now = () => new Date(`${DAY}T12:00:00Z`);
    const tags: (string | null)[][] = [];
    for (let i = 0; i < 2; i++) {
      const app = await startTestServer({ dbPath, now });
      try {
        tags.push(await Promise.all(['/api/zip/90210', '/api/resorts/vail', '/api/states'].map((p) => getJson(app, p).then((r) => r.headers.get('etag')))));
      } finally {
        await app.close();
      }
    }
    expect(tags[0]!.every((t) => typeof t === 'string' && t.length > 2)).toBe(true);
    expect(tags[1]).toEqual(tags[0]);
  });
});
