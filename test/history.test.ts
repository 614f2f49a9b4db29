import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { bundle } from './helpers/bundle.js';
import { averageSeries, deviation, deviations, samplePoints, summarize, windowDates, yearsBefore, type HistoryDay } from '../src/domain/history.js';
import { haversineMiles, KM_PER_MILE } from '../src/domain/geo.js';
import { until } from './helpers/wait.js';
import { clockAt, expectProblem, getJson, startTestServer, TEST_KEY, privateDatabase } from './helpers/server.js';
import { fakeDaily, startFakeUpstream, type FakeUpstream } from './helpers/fake-upstream.js';

const day = (date: string, snowfallCm: number, precipitationMm: number, snowDepthCm: number, tempMinC: number, tempMaxC: number): HistoryDay => ({
  date,
  snowfallCm,
  precipitationMm,
  snowDepthCm,
  tempMinC,
  tempMaxC,
});

describe('history math', () => {
  it('averages points day by day, then totals amounts and averages states', () => {
    const dates = ['2027-01-01', '2027-01-02'];
    const a = [day('2027-01-01', 10, 8, 100, -10, -2), day('2027-01-02', 0, 0, 96, -12, -4)];
    const b = [day('2027-01-01', 20, 12, 140, -8, 0), day('2027-01-02', 4, 2, 150, -10, -2)];
    const avg = averageSeries([a, b], dates);
    expect(avg).toEqual([day('2027-01-01', 15, 10, 120, -9, -1), day('2027-01-02', 2, 1, 123, -11, -3)]);
    // Hand-computed: snowfall 15 + 2 = 17, precipitation 11, depth (120 + 123) / 2, temperatures averaged.
    expect(summarize(avg)).toEqual({ snowfall: 17, precipitation: 11, snowDepth: 121.5, tempMin: -10, tempMax: -2 });
  });

  it('computes deviations absolute and in percent of the baseline; temperatures in degrees only', () => {
    expect(deviation(30, 20)).toEqual({ absolute: 10, percent: 50 });
    expect(deviation(-6, -4)).toEqual({ absolute: -2, percent: -50 });
    expect(deviation(5, 0)).toEqual({ absolute: 5, percent: null });
    const d = deviations(
      { snowfall: 17, precipitation: 11, snowDepth: 121.5, tempMin: -10, tempMax: -2 },
      { snowfall: 34, precipitation: 11, snowDepth: 81, tempMin: -8, tempMax: 0 },
    );
    expect(d).toEqual({
      snowfall: { absolute: -17, percent: -50 },
      precipitation: { absolute: 0, percent: 0 },
      snowDepth: { absolute: 40.5, percent: 50 },
      tempMin: { absolute: -2 },
      tempMax: { absolute: -2 },
    });
  });

  it('shifts calendar windows by years, leap days included', () => {
    expect(windowDates('2027-03-01', 3)).toEqual(['2027-02-27', '2027-02-28', '2027-03-01']);
    expect(yearsBefore('2028-02-29', 1)).toBe('2027-02-28');
    expect(yearsBefore('2028-02-29', 4)).toBe('2024-02-29');
    expect(yearsBefore('2027-01-15', 10)).toBe('2017-01-15');
  });

  it('samples the resort and six points on the circle', () => {
    const pts = samplePoints(46.02, 7.75, 12);
    expect(pts).toHaveLength(7);
    expect(pts[0]).toEqual({ lat: 46.02, lng: 7.75 });
    for (const p of pts.slice(1)) expect(haversineMiles(46.02, 7.75, p.lat, p.lng) * KM_PER_MILE).toBeCloseTo(12, 1);
  });
});

describe('GET /api/resorts/{id}/history (simulated provider)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestServer({ now: clockAt('2027-02-10T09:00:00Z') });
  });
  afterAll(() => app.close());

  it('returns the window, the baseline and deviations that add up', async () => {
    for (const prefix of ['', '/v1']) {
      const r = await getJson(app, `${prefix}/api/resorts/zermatt/history?days=10&years=3&radiusKm=5`);
      expect(r.status).toBe(200);
      const b = r.body;
      expect(b).toMatchObject({
        resortId: 'zermatt',
        provider: 'simulated',
        parameters: { days: 10, years: 3, radiusKm: 5 },
        window: { from: '2027-02-01', to: '2027-02-10' },
      });
      expect(b.points).toHaveLength(7);
      expect(b.daily.map((d: { date: string }) => d.date)).toEqual(windowDates('2027-02-10', 10));
      const total = b.daily.reduce((n: number, d: { snowfall: number }) => n + d.snowfall, 0);
      expect(b.summary.current.snowfall).toBeCloseTo(total, 0);
      const baseTotal = b.daily.reduce((n: number, d: { baseline: { snowfall: number } }) => n + d.baseline.snowfall, 0);
      expect(b.summary.baseline.snowfall).toBeCloseTo(baseTotal, 0);
      expect(b.summary.deviation.snowfall.absolute).toBeCloseTo(b.summary.current.snowfall - b.summary.baseline.snowfall, 0);
      expect(Object.keys(b.summary.deviation).sort()).toEqual(['precipitation', 'snowDepth', 'snowfall', 'tempMax', 'tempMin']);
    }
  });

  it('defaults to 30 days, 5 years and 12 km, and converts to imperial', async () => {
    const r = await getJson(app, '/api/resorts/vail/history');
    expect(r.body.parameters).toEqual({ days: 30, years: 5, radiusKm: 12 });
    expect(r.body.daily).toHaveLength(30);
    const i = await getJson(app, '/api/resorts/vail/history?units=imperial');
    expect(i.body.units.temperature).toBe('°F');
    expect(i.body.summary.current.tempMax).toBeCloseTo((r.body.summary.current.tempMax * 9) / 5 + 32, 0);
    expect(i.body.summary.deviation.tempMax.absolute).toBeCloseTo(r.body.summary.deviation.tempMax.absolute * 1.8, 0);
  });

  it('checks every bound and the resort id', async () => {
    for (const ok of ['days=7', 'days=90', 'years=1', 'years=10', 'radiusKm=1', 'radiusKm=40', 'radiusKm=2.5']) {
      expect((await getJson(app, `/api/resorts/alta/history?${ok}`)).status, ok).toBe(200);
    }
    const cases: [string, string, string][] = [
      ['days=6', 'days', '>= 7'],
      ['days=91', 'days', '<= 90'],
      ['days=8.5', 'days', 'an integer'],
      ['years=0', 'years', '>= 1'],
      ['years=11', 'years', '<= 10'],
      ['radiusKm=0.9', 'radiusKm', '>= 1'],
      ['radiusKm=40.1', 'radiusKm', '<= 40'],
      ['radiusKm=far', 'radiusKm', 'a finite number'],
    ];
    for (const [q, name, bound] of cases) {
      expect(expectProblem(await getJson(app, `/api/resorts/alta/history?${q}`), 400).errors, q).toContainEqual(expect.objectContaining({ name, bound }));
    }
    expectProblem(await getJson(app, '/api/resorts/atlantis/history'), 404);
  });
});

describe('history from Open-Meteo (a local server speaking its format)', () => {
  let fake: FakeUpstream;
  let app: RunningApp;
  const lines: string[] = [];
  beforeAll(async () => {
    fake = await startFakeUpstream({ today: '2027-02-10' });
    const dbPath = privateDatabase('gateway-hist-');
    const { startApp, loadConfig } = await bundle();
    const base = loadConfig({});
    app = await startApp({
      config: {
        ...base,
        port: 0,
        host: '127.0.0.1',
        dbPath,
        logLevel: 'info',
        apiKeys: [TEST_KEY],
        apiKeysQuota: 1e9,
        apiKeysRate: 1e6,
        provider: 'open-meteo',
        openMeteo: { forecast: `${fake.url}/v1/forecast`, archive: `${fake.url}/v1/archive` },
        // The breaker never opens here (its own tests are in providers.test.ts): each failure below
        // reaches the provider, with no waiting for a circuit to close again.
        // A time-out a busy machine's answers stay well inside, that a hanging provider still reaches
        // within the request's deadline (one attempt for a hang: retries are off).
        upstream: { timeoutMs: 4000, retries: 0, concurrency: 4, backoffMs: 5, resetTimeoutMs: 300, maxBytes: 8_000_000, volumeThreshold: 1_000_000 },
        // No sync run at start (the database has no window yet): only history calls reach the fake.
        syncIntervalMinutes: 0,
      },
      now: clockAt('2027-02-10T09:00:00Z'),
      logger: pino(
        { level: 'info' },
        new Writable({
          write: (c, _e, done) => {
            lines.push(String(c));
            done();
          },
        }),
      ),
    });
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.mode = 'ok';
    fake.requests.length = 0;
  });

  it('computes the baseline from the archive and the window from the forecast API', async () => {
    const r = await getJson(app, '/api/resorts/alta/history?days=8&years=2&radiusKm=3');
    expect(r.status).toBe(200);
    expect(r.body.provider).toBe('open-meteo');
    // One recent call and one archive call per year, every point in each.
    expect(fake.requests.filter((u) => u.startsWith('/v1/forecast'))).toHaveLength(1);
    expect(fake.requests.filter((u) => u.startsWith('/v1/archive'))).toHaveLength(2);
    const idx = (d: string) => Math.round(Date.parse(`${d}T00:00:00Z`) / 86_400_000);
    expect(r.body.daily).toHaveLength(8);
    for (const d of r.body.daily) {
      expect(d.snowfall).toBe(fakeDaily.snowfall(idx(d.date)));
      expect(d.snowDepth).toBe(125);
      expect(d.tempMax).toBe(fakeDaily.tempMax(2600, idx(d.date)));
    }
    const windowSnow = r.body.daily.reduce((n: number, d: { snowfall: number }) => n + d.snowfall, 0);
    expect(r.body.summary.current.snowfall).toBe(windowSnow);
    // Cached per resort, parameters and day: no second round of calls.
    const calls = fake.requests.length;
    expect((await getJson(app, '/api/resorts/alta/history?days=8&years=2&radiusKm=3')).body).toEqual(r.body);
    expect(fake.requests.length).toBe(calls);
  });

  it('answers 502 "provider lookup error" when the provider fails, times out or talks nonsense', async () => {
    for (const [mode, cause] of [
      ['server-error', 'upstream temporarily unavailable'],
      ['hang', 'timed out'],
      ['not-json', 'malformed response'],
    ] as const) {
      fake.mode = mode;
      lines.length = 0;
      const r = await getJson(app, `/api/resorts/snowbird/history?days=${mode === 'hang' ? 9 : mode === 'not-json' ? 10 : 11}`);
      const p = expectProblem(r, 502);
      expect(p.code).toBe('UPSTREAM_FAILED');
      expect(p.detail).toMatch(/^provider lookup error/);
      expect(JSON.stringify(r.body)).not.toContain(cause);
      // The failing call may finish after the answer went out (its siblings failed fast).
      await until(async () => lines.some((l) => l.includes(cause)), Boolean);
    }
    // Once the provider answers again.
    fake.mode = 'ok';
    expect((await getJson(app, '/api/resorts/snowbird/history?days=11')).status).toBe(200);
  });
});
