import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { clockAt, expectProblem, getJson, startTestServer } from './helpers/server.js';

let app: RunningApp;
beforeAll(async () => {
  app = await startTestServer({ privateDb: true, now: clockAt('2027-01-15T12:00:00Z') });
});
afterAll(() => app.close());

const LEVEL_KEYS = ['elevation', 'snowfall', 'tempMax', 'tempMin', 'windGust', 'windSpeed'];

describe.each(['', '/v1'])('resort REST paths under "%s"', (prefix) => {
  const get = (path: string) => getJson(app, prefix + path);

  it('GET /health reports status, service and an ISO timestamp from the clock', async () => {
    const r = await get('/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok', service: 'ski-zip-gateway', timestamp: '2027-01-15T12:00:00.000Z' });
  });

  it('GET /api/resorts pages through the catalogue with current conditions', async () => {
    const first = await get('/api/resorts');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ limit: 20, offset: 0, units: { system: 'METRIC', depth: 'cm' } });
    expect(first.body.total).toBe(241);
    expect(first.body.resorts).toHaveLength(20);
    const r = first.body.resorts[0];
    expect(Object.keys(r.conditions).sort()).toEqual([
      'newSnow24h',
      'newSnow48h',
      'newSnow72h',
      'openLifts',
      'openTrails',
      'snowDepthBase',
      'snowDepthMid',
      'snowDepthSummit',
      'status',
      'surface',
      'temperature',
      'totalLifts',
      'totalTrails',
    ]);
    expect(r.source).toBe('simulated');
    const names = first.body.resorts.map((x: { name: string }) => x.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b, 'en', { sensitivity: 'base' })));

    const ids: string[] = [];
    for (let offset = 0; offset < first.body.total; offset += 200) {
      const page = await get(`/api/resorts?limit=200&offset=${offset}`);
      ids.push(...page.body.resorts.map((x: { id: string }) => x.id));
    }
    expect(new Set(ids).size).toBe(first.body.total);
  });

  it('GET /api/resorts filters by name, country, region and continent', async () => {
    const q = await get('/api/resorts?q=WHISTLER');
    expect(q.body.resorts.map((x: { id: string }) => x.id)).toEqual(['whistler-blackcomb']);
    const ch = await get('/api/resorts?country=ch&limit=200');
    expect(ch.body.total).toBeGreaterThan(10);
    expect(ch.body.resorts).toHaveLength(ch.body.total);
    expect(ch.body.resorts.every((x: { country: string }) => x.country === 'CH')).toBe(true);
    const utah = await get('/api/resorts?region=utah');
    expect(utah.body.resorts.map((x: { id: string }) => x.id)).toContain('alta');
    expect(utah.body.resorts.length).toBeGreaterThan(1);
    expect(utah.body.resorts.every((x: { region: string }) => x.region === 'Utah')).toBe(true);
    const oc = await get('/api/resorts?continent=oceania&limit=200');
    expect(oc.body.resorts.length).toBeGreaterThan(3);
    expect(oc.body.resorts.every((x: { country: string }) => ['AU', 'NZ'].includes(x.country))).toBe(true);
    const sa = await get('/api/resorts?continent=South-America');
    expect(sa.body.total).toBeGreaterThan(5);
    const none = await get('/api/resorts?q=100%25_powder');
    expect(none.body).toMatchObject({ total: 0, resorts: [] });
    const combined = await get('/api/resorts?country=US&region=Colorado&q=aspen');
    expect(combined.body.resorts.map((x: { id: string }) => x.id).sort()).toEqual(['aspen-highlands', 'aspen-mountain']);
  });

  it('GET /api/resorts bounds', async () => {
    for (const ok of ['limit=1', 'limit=200', 'offset=0', 'units=imperial', 'units=METRIC']) expect((await get(`/api/resorts?${ok}`)).status, ok).toBe(200);
    // Past a GraphQL Int (what the operation carries) up to the documented bound: an empty page, as asked.
    for (const offset of [2 ** 31, Number.MAX_SAFE_INTEGER]) expect((await get(`/api/resorts?offset=${offset}`)).body).toMatchObject({ offset, resorts: [] });
    const cases: [string, string, string][] = [
      ['limit=0', 'limit', '>= 1'],
      ['limit=201', 'limit', '<= 200'],
      ['limit=1.5', 'limit', 'an integer'],
      ['offset=-1', 'offset', '>= 0'],
      ['offset=9007199254740993', 'offset', '<= 9007199254740991'],
      ['country=USA', 'country', 'a 2-letter ISO 3166-1 country code'],
      ['continent=Atlantis', 'continent', 'one of Africa, Antarctica, Asia, Europe, North America, Oceania, South America'],
      ['units=kelvin', 'units', 'metric or imperial (or METRIC, IMPERIAL)'],
      ['units=Imperial', 'units', 'metric or imperial (or METRIC, IMPERIAL)'],
      ['q=', 'q', 'non-empty'],
      [`q=${'a'.repeat(101)}`, 'q', 'at most 100 characters'],
      // SQLite's LIKE stops at a NUL: `q=%00` was a search for nothing, which every resort matched.
      ['q=%00', 'q', 'free of control, format and line-separator characters (Unicode Cc, Cf, Zl, Zp)'],
      ['q=%E2%80%A8vail', 'q', 'free of control, format and line-separator characters (Unicode Cc, Cf, Zl, Zp)'],
      ['region=%EF%BB%BFColorado', 'region', 'free of control, format and line-separator characters (Unicode Cc, Cf, Zl, Zp)'],
      ['region=Colorado%1B', 'region', 'free of control, format and line-separator characters (Unicode Cc, Cf, Zl, Zp)'],
      ['limit=%E3%80%805', 'limit', 'an integer'],
      ['q=%FF', 'q', 'valid percent-encoded UTF-8'],
      ['q=100%', 'q', 'valid percent-encoded UTF-8'],
      ['region=%ED%A0%80', 'region', 'valid percent-encoded UTF-8'],
    ];
    for (const [query, name, bound] of cases) {
      const p = expectProblem(await get(`/api/resorts?${query}`), 400);
      expect(p.errors, query).toContainEqual(expect.objectContaining({ name, bound }));
    }
  });

  it('GET /api/resorts/{id} gives the full snow report', async () => {
    const r = await get('/api/resorts/vail');
    expect(r.status).toBe(200);
    const b = r.body;
    expect(b).toMatchObject({
      id: 'vail',
      name: 'Vail',
      country: 'US',
      countryName: 'United States',
      region: 'Colorado',
      continent: 'North America',
      source: 'simulated',
      inventorySource: 'generated',
      date: '2027-01-15',
    });
    expect(b.elevation).toEqual({ base: 2475, summit: 3527, vertical: 1052 });
    expect(b.operation.status).toMatch(/^(OPEN|CLOSED)$/);
    expect(b.operation.seasonOpens < '2027-01-15' && b.operation.seasonCloses > '2027-01-15').toBe(true);
    expect(Object.keys(b.snow).sort()).toEqual([
      'depthBase',
      'depthMid',
      'depthSummit',
      'lastSnowfall',
      'newSnow24h',
      'newSnow48h',
      'newSnow72h',
      'newSnow7d',
      'seasonTotal',
      'surface',
    ]);
    expect(b.snow.newSnow72h).toBeGreaterThanOrEqual(b.snow.newSnow24h);
    expect(b.snow.newSnow7d).toBeGreaterThanOrEqual(b.snow.newSnow72h);
    expect(b.snow.seasonTotal).toBeGreaterThanOrEqual(b.snow.newSnow7d);
    expect(b.forecast).toHaveLength(7);
    expect(b.forecast[0].date).toBe('2027-01-15');
    expect(Object.keys(b.forecast[0].summit).sort()).toEqual(LEVEL_KEYS);
    expect(b.trails.total).toBe(195);
    expect(b.lifts.total).toBe(31);
    expect(b.trails.open).toBeLessThanOrEqual(b.trails.total);
    expect(Object.keys(b.trails.byDifficulty)).toEqual(['BEGINNER', 'INTERMEDIATE', 'ADVANCED', 'EXPERT']);
    expect(b.weather).toHaveProperty('temperature');
  });

  it('units=imperial converts every kind of number', async () => {
    const m = (await get('/api/resorts/zermatt')).body;
    const i = (await get('/api/resorts/zermatt?units=IMPERIAL')).body;
    expect(i.units).toMatchObject({ system: 'IMPERIAL', depth: 'in', elevation: 'ft', temperature: '°F', speed: 'mph' });
    expect(i.elevation.summit).toBe(Math.round(3883 / 0.3048));
    expect(i.snow.depthBase).toBeCloseTo(m.snow.depthBase / 2.54, 0);
    expect(i.forecast[0].base.tempMax).toBeCloseTo((m.forecast[0].base.tempMax * 9) / 5 + 32, 0);
    expect(i.forecast[0].summit.windSpeed).toBeCloseTo(m.forecast[0].summit.windSpeed / 1.609344, 0);
    expect(i.trails).toEqual(m.trails);
  });

  it('GET /api/resorts/{id}/weather: current weather and a 7-day forecast', async () => {
    const r = await get('/api/resorts/thredbo/weather');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ resortId: 'thredbo', source: 'simulated' });
    expect(r.body.current.time).toBe('2027-01-15T12:00:00.000Z');
    expect(r.body.forecast.map((d: { date: string }) => d.date)).toEqual([
      '2027-01-15',
      '2027-01-16',
      '2027-01-17',
      '2027-01-18',
      '2027-01-19',
      '2027-01-20',
      '2027-01-21',
    ]);
    for (const d of r.body.forecast) {
      expect(d.precipitationProbability).toBeGreaterThanOrEqual(0);
      expect(d.precipitationProbability).toBeLessThanOrEqual(100);
      expect(d.summit.tempMax).toBeLessThanOrEqual(d.base.tempMax);
      expect(d.summit.elevation).toBe(2037);
    }
  });

  it('GET /api/resorts/{id}/trails: trails with counts by difficulty and status', async () => {
    const r = await get('/api/resorts/zermatt/trails');
    expect(r.body).toMatchObject({ resortId: 'zermatt', source: 'generated' });
    const trails = r.body.trails as { difficulty: string; status: string; grooming: string; rating: string }[];
    expect(trails).toHaveLength(145);
    expect(r.body.summary.total).toBe(145);
    expect(r.body.summary.open).toBe(trails.filter((t) => t.status === 'OPEN').length);
    expect(r.body.summary.byStatus).toEqual({ OPEN: r.body.summary.open, CLOSED: 145 - r.body.summary.open });
    for (const d of ['BEGINNER', 'INTERMEDIATE', 'ADVANCED', 'EXPERT']) {
      expect(r.body.summary.byDifficulty[d].total).toBe(trails.filter((t) => t.difficulty === d).length);
    }
    for (const t of trails) {
      expect(['OPEN', 'CLOSED']).toContain(t.status);
      expect(['GROOMED', 'UNGROOMED']).toContain(t.grooming);
      if (t.status === 'CLOSED') expect(t.grooming).toBe('UNGROOMED');
    }
    const again = await get('/api/resorts/zermatt/trails');
    expect(again.body).toEqual(r.body);
  });

  it('GET /api/resorts/{id}/lifts: lifts with counts by type and status', async () => {
    const r = await get('/api/resorts/whistler-blackcomb/lifts');
    const lifts = r.body.lifts as { type: string; status: string; seats: number; capacityPerHour: number }[];
    expect(lifts).toHaveLength(37);
    const byStatus = r.body.summary.byStatus;
    expect(Object.keys(byStatus)).toEqual(['OPEN', 'HOLD', 'SCHEDULED', 'CLOSED']);
    expect(Object.values(byStatus as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(37);
    for (const [type, c] of Object.entries(r.body.summary.byType as Record<string, { total: number }>)) {
      expect(c.total).toBe(lifts.filter((l) => l.type === type).length);
    }
    for (const l of lifts) expect(l.capacityPerHour).toBeGreaterThan(0);
  });

  it('GET /api/resorts/{id}/compare sets two resorts side by side', async () => {
    const r = await get('/api/resorts/vail/compare?with=zermatt');
    expect(r.status).toBe(200);
    expect(r.body.resort.id).toBe('vail');
    expect(r.body.with.id).toBe('zermatt');
    expect(r.body.differences.summitElevation).toBe(3527 - 3883);
    expect(r.body.differences.snowDepthBase).toBeCloseTo(r.body.resort.conditions.snowDepthBase - r.body.with.conditions.snowDepthBase, 1);
    expect(r.body.distanceKm).toBeGreaterThan(8000);
    expect(r.body.distanceKm).toBeLessThan(9000);
  });

  it('404 for unknown resort ids on every /api/resorts/{id} path, 400 for malformed ones and a missing with', async () => {
    for (const sub of ['', '/weather', '/trails', '/lifts', '/compare?with=vail']) {
      const p = expectProblem(await get(`/api/resorts/atlantis${sub}`), 404);
      expect(p.code).toBe('NOT_FOUND');
      expectProblem(await get(`/api/resorts/bad_id!${sub}`), 400);
    }
    const unknownWith = expectProblem(await get('/api/resorts/vail/compare?with=atlantis'), 404);
    expect(unknownWith.errors![0]).toMatchObject({ name: 'with', value: 'atlantis' });
    const missing = expectProblem(await get('/api/resorts/vail/compare'), 400);
    expect(missing.errors![0]).toMatchObject({ name: 'with', bound: 'given (it is required)' });
  });

  it('GET /api/conditions/top-snow ranks by 24 h then 72 h snowfall', async () => {
    const r = await get('/api/conditions/top-snow');
    expect(r.body.limit).toBe(10);
    const list = r.body.resorts as { rank: number; newSnow24h: number; newSnow72h: number }[];
    expect(list.length).toBeGreaterThan(0);
    expect(list.length).toBeLessThanOrEqual(10);
    list.forEach((e, i) => {
      expect(e.rank).toBe(i + 1);
      expect(e.newSnow72h).toBeGreaterThan(0);
      const prev = list[i - 1];
      if (prev) expect(prev.newSnow24h > e.newSnow24h || (prev.newSnow24h === e.newSnow24h && prev.newSnow72h >= e.newSnow72h)).toBe(true);
    });
    const fifty = await get('/api/conditions/top-snow?limit=50');
    expect(fifty.body.resorts.slice(0, list.length)).toEqual(list);
    for (const [q, bound] of [
      ['limit=0', '>= 1'],
      ['limit=51', '<= 50'],
      ['limit=x', 'an integer'],
    ]) {
      expect(expectProblem(await get(`/api/conditions/top-snow?${q}`), 400).errors![0]!.bound).toBe(bound);
    }
    expect((await get('/api/conditions/top-snow?limit=1')).body.resorts).toHaveLength(1);
  });

  it('GET /api/conditions/open-now keeps open resorts meeting the open-trail share', async () => {
    const r = await get('/api/conditions/open-now');
    expect(r.body.minOpenTrailsPct).toBe(50);
    const list = r.body.resorts as { openTrailsPct: number; openTrails: number; totalTrails: number }[];
    expect(r.body.count).toBe(list.length);
    expect(list.length).toBeGreaterThan(10);
    for (const e of list) {
      expect(e.openTrailsPct).toBeGreaterThanOrEqual(50);
      expect(e.openTrailsPct).toBeCloseTo((100 * e.openTrails) / e.totalTrails, 1);
    }
    const all = await get('/api/conditions/open-now?minOpenTrailsPct=0');
    const strict = await get('/api/conditions/open-now?minOpenTrailsPct=100');
    expect(all.body.count).toBeGreaterThanOrEqual(r.body.count);
    expect(strict.body.resorts.length).toBeGreaterThan(0);
    expect(strict.body.resorts.every((e: { openTrailsPct: number }) => e.openTrailsPct === 100)).toBe(true);
    expect(strict.body.count).toBeLessThan(r.body.count);
    expect((await get('/api/conditions/open-now?minOpenTrailsPct=99.5')).status).toBe(200);
    for (const [q, bound] of [
      ['minOpenTrailsPct=-0.1', '>= 0'],
      ['minOpenTrailsPct=100.1', '<= 100'],
      ['minOpenTrailsPct=lots', 'a finite number'],
    ]) {
      expect(expectProblem(await get(`/api/conditions/open-now?${q}`), 400).errors![0]!.bound).toBe(bound);
    }
  });

  it('GET /api/conditions/storm-watch lists forecast storms above the threshold', async () => {
    const r = await get('/api/conditions/storm-watch?limit=50');
    expect(r.body.threshold48h).toBe(20);
    // Under this clock there are storms to list: the loop below checks something.
    expect(r.body.resorts.length).toBeGreaterThan(0);
    for (const e of r.body.resorts as { snowfall48h: number; peakSnowfall: number; peakDate: string }[]) {
      expect(e.snowfall48h).toBeGreaterThanOrEqual(20);
      expect(e.peakSnowfall).toBeLessThanOrEqual(e.snowfall48h);
      // The 48 hours from 12:00 UTC on the 15th reach the 17th in zones east of UTC.
      expect(['2027-01-15', '2027-01-16', '2027-01-17']).toContain(e.peakDate);
    }
    const amounts = r.body.resorts.map((e: { snowfall48h: number }) => e.snowfall48h);
    expect(amounts).toEqual([...amounts].sort((a: number, b: number) => b - a));
    expectProblem(await get('/api/conditions/storm-watch?limit=51'), 400);
  });

  it('GET /api/insights/snow totals snowfall per resort with network averages', async () => {
    const week = await get('/api/insights/snow');
    expect(week.body).toMatchObject({ days: 7, from: '2027-01-09', to: '2027-01-15' });
    const totals = week.body.resorts.map((e: { totalSnowfall: number }) => e.totalSnowfall);
    expect(totals).toEqual([...totals].sort((a: number, b: number) => b - a));
    expect(week.body.network.resorts).toBe(week.body.resorts.length);
    const mean = totals.reduce((a: number, b: number) => a + b, 0) / totals.length;
    expect(week.body.network.averageSnowfall).toBeCloseTo(mean, 0);
    const vail = (d: { body: { resorts: { resort: { id: string }; totalSnowfall: number }[] } }) => d.body.resorts.find((e) => e.resort.id === 'vail')!;
    const report = await get('/api/resorts/vail');
    expect(vail(week).totalSnowfall).toBeCloseTo(report.body.snow.newSnow7d, 0);
    const sixty = await get('/api/insights/snow?days=60');
    expect(sixty.body.from).toBe('2026-11-17');
    expect(vail(sixty).totalSnowfall).toBeGreaterThanOrEqual(vail(week).totalSnowfall);
    expect((await get('/api/insights/snow?days=1')).status).toBe(200);
    for (const [q, bound] of [
      ['days=0', '>= 1'],
      ['days=61', '<= 60'],
      ['days=7.5', 'an integer'],
    ]) {
      expect(expectProblem(await get(`/api/insights/snow?${q}`), 400).errors![0]!.bound).toBe(bound);
    }
  });
});

describe('resort conditions through the year', () => {
  it('opens northern resorts in January and closes them in July (and the reverse in the south)', async () => {
    const summer = await startTestServer({ privateDb: true, now: clockAt('2027-07-15T12:00:00Z') });
    try {
      const north = await getJson(summer, '/api/resorts/vail');
      expect(north.body.operation.status).toBe('CLOSED');
      expect(north.body.operation.reason).toMatch(/out of season/);
      expect(north.body.trails.open).toBe(0);
      expect(north.body.lifts.open).toBe(0);
      const south = await getJson(summer, '/api/resorts/perisher');
      const winterNorth = await getJson(app, '/api/resorts/perisher');
      expect(winterNorth.body.operation.status).toBe('CLOSED');
      expect(south.body.snow.depthSummit).toBeGreaterThan(0);
      const open = await getJson(summer, '/api/conditions/open-now?minOpenTrailsPct=0');
      const continents = new Set(open.body.resorts.map((e: { resort: { continent: string } }) => e.resort.continent));
      expect(continents.has('North America')).toBe(false);
      expect(continents.has('Oceania') || continents.has('South America')).toBe(true);
    } finally {
      await summer.close();
    }
  });

  it('gives the same answers for the same clock (a second server, its own database)', async () => {
    const twin = await startTestServer({ privateDb: true, now: clockAt('2027-01-15T12:00:00Z') });
    try {
      for (const path of ['/api/resorts/vail', '/api/conditions/top-snow', '/api/insights/snow?days=30', '/api/resorts/zermatt/lifts']) {
        expect((await getJson(twin, path)).body, path).toEqual((await getJson(app, path)).body);
      }
    } finally {
      await twin.close();
    }
  });
});
