import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import path from 'node:path';
import { spawnServer } from './helpers/process.js';
import { until } from './helpers/wait.js';
import { getJson, privateDatabase, startTestServer, TEST_KEY } from './helpers/server.js';

/**
 * Resort-local days over a real server whose clock the test moves: time zones on every continent
 * and in every US zone, the local date beside UTC's, and the midnight rollover on a running server.
 */

let app: RunningApp;
let clock = new Date('2027-01-15T23:00:00Z');
beforeAll(async () => {
  app = await startTestServer({ privateDb: true, countStatements: true, now: () => clock });
});
afterAll(() => app.close());

const gql = async (query: string) => {
  const r = await getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  expect(r.body.errors).toBeUndefined();
  return r.body.data;
};

describe('time zones', () => {
  it('every resort has its IANA zone, one on each continent with a ski resort', async () => {
    const expected: Record<string, string> = {
      vail: 'America/Denver',
      'whistler-blackcomb': 'America/Vancouver',
      zermatt: 'Europe/Zurich',
      chamonix: 'Europe/Paris',
      niseko: 'Asia/Tokyo',
      gulmarg: 'Asia/Kolkata',
      thredbo: 'Australia/Sydney',
      'coronet-peak': 'Pacific/Auckland',
      portillo: 'America/Santiago',
      'cerro-catedral': 'America/Argentina/Salta',
      oukaimeden: 'Africa/Casablanca',
      afriski: 'Africa/Maseru',
    };
    for (const [id, zone] of Object.entries(expected)) {
      const r = await getJson(app, `/api/resorts/${id}`);
      expect(r.status, id).toBe(200);
      expect([id, r.body.timezone]).toEqual([id, zone]);
    }
    const zones = await gql('{ resorts(paging: { limit: 200 }) { resorts { timezone } } }');
    expect(zones.resorts.resorts.length).toBeGreaterThan(100);
    expect(zones.resorts.resorts.every((r: { timezone: string }) => /^[A-Z][A-Za-z_]+\/[A-Za-z_/-]+$/.test(r.timezone))).toBe(true);
  });

  it('ZIP codes in every US time zone, Arizona and Hawaii included', async () => {
    const expected: [string, string][] = [
      ['10001', 'America/New_York'],
      ['60601', 'America/Chicago'],
      ['80202', 'America/Denver'],
      ['85004', 'America/Phoenix'],
      ['90210', 'America/Los_Angeles'],
      ['99501', 'America/Anchorage'],
      ['96813', 'Pacific/Honolulu'],
      ['46204', 'America/Indiana/Indianapolis'],
      ['83702', 'America/Boise'],
      ['48201', 'America/Detroit'],
    ];
    for (const [zip, zone] of expected) expect([zip, (await getJson(app, `/api/zip/${zip}`)).body.timezone]).toEqual([zip, zone]);
  });
});

describe('local days', () => {
  it('at 23:00 UTC a resort in Japan is already on the next local day; one in Colorado is still on the same', async () => {
    clock = new Date('2027-01-15T23:00:00Z');
    const niseko = (await getJson(app, '/api/resorts/niseko')).body;
    expect(niseko.date).toBe('2027-01-16');
    expect(niseko.updatedAt).toBe('2027-01-16T08:00:00+09:00');
    expect(niseko.forecast[0].date).toBe('2027-01-16');
    expect(niseko.forecast).toHaveLength(7);
    const vail = (await getJson(app, '/api/resorts/vail')).body;
    expect(vail.date).toBe('2027-01-15');
    expect(vail.updatedAt).toBe('2027-01-15T16:00:00-07:00');
    expect(vail.forecast.map((d: { date: string }) => d.date)).toEqual([
      '2027-01-15',
      '2027-01-16',
      '2027-01-17',
      '2027-01-18',
      '2027-01-19',
      '2027-01-20',
      '2027-01-21',
    ]);
  });

  it('the season follows local days: Thredbo’s opening day starts at local midnight', async () => {
    // 13 June 2027 00:00 in Sydney (UTC+10) is 12 June 14:00 UTC.
    clock = new Date('2027-06-12T13:00:00Z');
    const before = (await getJson(app, '/api/resorts/thredbo')).body;
    expect(before.date).toBe('2027-06-12');
    expect(before.operation).toMatchObject({ status: 'CLOSED', seasonOpens: '2027-06-13' });
    clock = new Date('2027-06-12T14:00:00Z');
    const after = (await getJson(app, '/api/resorts/thredbo')).body;
    expect(after.date).toBe('2027-06-13');
    expect(after.operation.reason).not.toMatch(/out of season/);
  });

  it('a running server rolls over at each resort’s midnight: the date, the forecast and new snow move on', async () => {
    clock = new Date('2027-01-16T06:30:00Z');
    const before = (await getJson(app, '/api/resorts/vail')).body;
    expect(before.date).toBe('2027-01-15');
    expect(before.updatedAt).toBe('2027-01-15T23:00:00-07:00');
    clock = new Date('2027-01-16T07:00:00Z');
    const after = (await getJson(app, '/api/resorts/vail')).body;
    expect(after.date).toBe('2027-01-16');
    expect(after.updatedAt).toBe('2027-01-16T00:00:00-07:00');
    expect(after.forecast[0].date).toBe('2027-01-16');
    // At local midnight the last 24 hours are exactly the 15th: its daily total.
    expect(after.snow.newSnow24h).toBe(before.forecast[0].summit.snowfall);
  });

  it('the history window ends on the resort’s local today', async () => {
    clock = new Date('2027-01-15T23:00:00Z');
    const r = await getJson(app, '/api/resorts/niseko/history?days=7&years=1');
    expect(r.status).toBe(200);
    expect(r.body.window).toEqual({ from: '2027-01-10', to: '2027-01-16' });
    expect(Object.keys(r.body.summary.deviation.tempMin)).toEqual(['absolute']);
  });
});

describe('lookups', () => {
  beforeAll(() => {
    clock = new Date('2027-01-15T12:00:00Z');
  });

  it('zips(codes): in the order asked, null for unknown codes, one statement at most', async () => {
    // A server of its own, whose clock no test moved: the statements counted are the lookup's,
    // not a weather window another day set filling in the background.
    const quiet = await startTestServer({ privateDb: true, countStatements: true, now: () => new Date('2027-01-15T12:00:00Z') });
    try {
      await quiet.ready();
      const before = quiet.statementCount();
      const r = await getJson(quiet, '/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ zips(codes: ["90210", "00000", "10001", "90210"]) { zip city timezone } }' }),
      });
      expect(r.body.errors).toBeUndefined();
      expect(r.body.data.zips).toEqual([
        { zip: '90210', city: 'Beverly Hills', timezone: 'America/Los_Angeles' },
        null,
        { zip: '10001', city: 'New York', timezone: 'America/New_York' },
        { zip: '90210', city: 'Beverly Hills', timezone: 'America/Los_Angeles' },
      ]);
      expect(quiet.statementCount() - before).toBeLessThanOrEqual(1);
    } finally {
      await quiet.close();
    }
  });

  it('zipsNear and resortsNear: from any position, nearest first, within the radius', async () => {
    const d = await gql(
      '{ zipsNear(lat: 40.7506, lng: -73.9972, radiusMiles: 1, limit: 5) { zip distanceMiles } resortsNear(lat: 39.64, lng: -106.37, radiusKm: 60, limit: 5) { resort { id } distanceKm distanceMiles } }',
    );
    expect(d.zipsNear[0].zip).toBe('10001');
    expect(d.zipsNear.length).toBeGreaterThan(1);
    const miles = d.zipsNear.map((z: { distanceMiles: number }) => z.distanceMiles);
    expect(miles).toEqual([...miles].sort((a, b) => a - b));
    expect(Math.max(...miles)).toBeLessThanOrEqual(1);
    const resorts = d.resortsNear as { resort: { id: string }; distanceKm: number; distanceMiles: number }[];
    expect(resorts[0]!.resort.id).toBe('vail');
    expect(resorts.map((r) => r.resort.id)).toContain('beaver-creek');
    for (const r of resorts) {
      expect(r.distanceKm).toBeLessThanOrEqual(60);
      expect(r.distanceKm).toBeCloseTo(r.distanceMiles * 1.609344, 1);
    }
    expect((await gql('{ resortsNear(lat: 0, lng: -140) { resort { id } } }')).resortsNear).toEqual([]);
  });

  it('the city search forgives St., St and Saint, case, punctuation and spaces', async () => {
    for (const name of ['St.%20Louis', 'st%20louis', 'Saint%20Louis', 'ST.%20%20LOUIS', 'saint-louis']) {
      const r = await getJson(app, `/api/city/${name}?state=MO`);
      expect([name, r.status]).toEqual([name, 200]);
      expect(r.body.zipcodes.map((z: { zip: string }) => z.zip)).toContain('63101');
    }
    const ftCollins = await getJson(app, '/api/city/Ft%20Collins?state=co');
    expect(ftCollins.body.zipcodes[0].city).toBe('Fort Collins');
  });

  it('cities(prefix) autocompletes, most ZIP codes first, within a state on request', async () => {
    const d = await gql(
      '{ all: cities(prefix: "St. Lo", limit: 3) { city stateCode zipCount } mo: cities(prefix: "saint l", state: "mo", limit: 1) { city stateCode zipCount } st: cities(prefix: "St", limit: 50) { city } }',
    );
    expect(d.all[0]).toMatchObject({ city: 'Saint Louis', stateCode: 'MO' });
    expect(d.all[0].zipCount).toBeGreaterThan(40);
    const counts = d.all.map((c: { zipCount: number }) => c.zipCount);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(d.mo).toEqual([d.all[0]]);
    // "St" still being typed matches Saint… and St…-words alike (Stamford, Sterling).
    const names = d.st.map((c: { city: string }) => c.city);
    expect(names.some((n: string) => n.startsWith('Saint '))).toBe(true);
    expect(names.some((n: string) => /^St[a-z]/.test(n))).toBe(true);
  });

  it('bounds of the fields only GraphQL serves (zips, zipsNear, resortsNear, cities): BAD_USER_INPUT naming the parameter and its bound', async () => {
    const codes = Array.from({ length: 101 }, (_, i) => `"${String(10000 + i)}"`).join(',');
    const cases: [string, string, string][] = [
      [`{ zips(codes: [${codes}]) { zip } }`, 'codes', 'at most 100 distinct items'],
      ['{ zips(codes: []) { zip } }', 'codes', 'at least 1 item'],
      ['{ zips(codes: ["1234"]) { zip } }', 'codes.0', 'exactly 5 digits'],
      ['{ zipsNear(lat: 91, lng: 0) { zip } }', 'lat', '<= 90'],
      ['{ zipsNear(lat: 0, lng: -180.5) { zip } }', 'lng', '>= -180'],
      ['{ zipsNear(lat: 0, lng: 0, radiusMiles: 0) { zip } }', 'radiusMiles', '> 0'],
      ['{ zipsNear(lat: 0, lng: 0, limit: 201) { zip } }', 'limit', '<= 200'],
      ['{ resortsNear(lat: 0, lng: 0, radiusKm: 801) { distanceKm } }', 'radiusKm', '<= 800'],
      ['{ resortsNear(lat: 0, lng: 0, limit: 0) { distanceKm } }', 'limit', '>= 1'],
      ['{ cities(prefix: "..") { city } }', 'prefix', 'a letter or digit'],
      [`{ cities(prefix: "${'x'.repeat(101)}") { city } }`, 'prefix', 'at most 100 characters'],
      ['{ cities(prefix: "a", limit: 51) { city } }', 'limit', '<= 50'],
      ['{ cities(prefix: "a", state: "Missouri") { city } }', 'state', 'a 2-letter state code'],
    ];
    for (const [query, name, bound] of cases) {
      const r = await getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
      const e = r.body.errors?.[0];
      expect([query.slice(0, 40), e?.extensions?.code, e?.extensions?.errors?.[0]?.name, e?.extensions?.errors?.[0]?.bound]).toEqual([
        query.slice(0, 40),
        'BAD_USER_INPUT',
        name,
        bound,
      ]);
    }
  });
});

describe('local time without ICU', () => {
  it('the built server answers local dates, hours and name order with ICU’s zone formatter and collator refusing to run', async () => {
    // Intl.DateTimeFormat, Intl.Collator and localeCompare throw in this process (the fixture says
    // why): the offsets come from the database's zone_offsets, names are ordered by compareNames.
    const server = spawnServer(privateDatabase('gateway-no-icu-'), {
      API_KEYS: TEST_KEY,
      CLOCK_START: '2027-01-15T23:00:00Z',
      WARM_UP_ROUNDS: '1',
      NODE_OPTIONS: `--require ${path.resolve(import.meta.dirname, 'fixtures/without-icu.cjs')}`,
    });
    try {
      const base = await server.url;
      const get = async (p: string) => {
        const r = await fetch(base + p, { headers: { 'x-api-key': TEST_KEY } });
        expect([p, r.status]).toEqual([p, 200]);
        return (await r.json()) as any;
      };
      const niseko = await get('/api/resorts/niseko');
      expect([niseko.date, niseko.updatedAt]).toEqual(['2027-01-16', '2027-01-16T08:00:00+09:00']);
      const vail = await get('/api/resorts/vail');
      expect([vail.date, vail.updatedAt]).toEqual(['2027-01-15', '2027-01-15T16:00:00-07:00']);
      // Summer time in the south: Sydney is at +11:00 in January.
      const thredbo = await get('/api/resorts/thredbo');
      expect([thredbo.date, thredbo.updatedAt]).toEqual(['2027-01-16', '2027-01-16T10:00:00+11:00']);
      const open = (await get('/api/conditions/open-now?limit=50')).resorts as { resort: { name: string } }[];
      expect(open.length).toBeGreaterThan(0);
      await get('/api/conditions/top-snow?limit=50');
      await get('/api/insights/snow?days=7');
      const list = (await get('/api/resorts?limit=20')).resorts as { name: string }[];
      expect(list.length).toBe(20);
      await until(
        async () => (await fetch(`${base}/readyz`)).status,
        (status) => status === 200,
      );
      expect(server.output()).not.toMatch(/should not load ICU/);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
