import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { graphql } from './gql/index.js';
import { clockAt, getJson, gql, startTestServer } from './helpers/server.js';
import { haversineMiles } from '../src/domain/geo.js';

let app: RunningApp;
beforeAll(async () => {
  app = await startTestServer({ privateDb: true, countStatements: true, now: clockAt('2027-02-01T08:30:00Z') });
});
afterAll(() => app.close());

const ResortQuery = graphql(`
  query TestResort($id: ID!, $units: Units) {
    resort(id: $id) {
      id name countryCode continent inventorySource
      location { lat lng }
      elevation(units: $units) { base summit vertical unit }
      conditions(units: $units) {
        date source status statusReason seasonOpens seasonCloses snowDepthBase snowDepthSummit newSnow24h newSnow72h
        newSnow7d seasonSnowfall surface openTrails totalTrails openTrailsPct openLifts totalLifts temperature
        units { system depth }
      }
      weather(units: $units) { source current { temperature summary } forecast { date precipitationProbability snowLine base { tempMin tempMax } summit { snowfall windGust } } }
      trailSummary { total open byDifficulty { difficulty total open } }
      liftSummary { total open byStatus { status count } }
    }
  }
`);

const ListQuery = graphql(`
  query TestResortList($limit: Int, $offset: Int) {
    resorts(paging: { limit: $limit, offset: $offset }) {
      total
      resorts {
        id
        trails { name status }
        lifts { name status }
        weather { forecast { date } }
        conditions { snowDepthBase openTrails }
      }
    }
  }
`);

const TypenameQuery = graphql(`
  query TestResortTypename { __typename }
`);

const CrossQuery = graphql(`
  query TestCross {
    zip(zip: "81657") { city nearbyResorts(radiusMiles: 30, limit: 5) { distanceMiles resort { id location { lat lng } } } }
    resort(id: "stowe") { nearbyZips(radiusMiles: 10, limit: 5) { zip stateCode distanceMiles } }
    far: resort(id: "zermatt") { nearbyZips { zip } }
  }
`);

const RankingsQuery = graphql(`
  query TestRankings {
    topSnow(limit: 5) { resorts { rank resort { id } newSnow24h newSnow72h } }
    openNow(minOpenTrailsPct: 75) { count resorts { openTrailsPct } }
    stormWatch { threshold48h resorts { snowfall48h } }
    snowInsights(days: 14) { days from to network { resorts averageSnowfall } resorts { resort { id } totalSnowfall } }
    compareResorts(id: "alta", with: "snowbird") { distanceKm differences { summitElevation } }
    health { status timestamp }
  }
`);

const BadArgsQuery = graphql(`
  query TestBadArgs($limit: Int, $days: Int) {
    topSnow(limit: $limit) { resorts { rank } }
    snowInsights(days: $days) { days }
  }
`);

describe('GraphQL resorts', () => {
  it('Query.resort answers what GET /api/resorts/{id} answers', async () => {
    const r = await gql(app, ResortQuery, { id: 'VAIL' });
    expect(r.errors).toBeUndefined();
    const g = r.data!.resort!;
    const rest = (await getJson(app, '/api/resorts/vail')).body;
    expect(g.id).toBe('vail');
    expect(g.conditions.snowDepthBase).toBe(rest.snow.depthBase);
    expect(g.conditions.newSnow72h).toBe(rest.snow.newSnow72h);
    expect(g.conditions.surface).toBe(rest.snow.surface);
    expect(g.conditions.status).toBe(rest.operation.status);
    expect(g.conditions.openTrails).toBe(rest.trails.open);
    expect(g.liftSummary.open).toBe(rest.lifts.open);
    expect(g.weather.forecast.map((d) => d.date)).toEqual(rest.forecast.map((d: { date: string }) => d.date));
    expect(g.weather.forecast[0]!.base).toEqual({ tempMin: rest.forecast[0].base.tempMin, tempMax: rest.forecast[0].base.tempMax });
    expect(g.conditions.source).toBe('simulated');
    expect(g.conditions.date).toBe('2027-02-01');
    expect(g.inventorySource).toBe('generated');
  });

  it('converts to imperial on request', async () => {
    const m = (await gql(app, ResortQuery, { id: 'alta', units: 'METRIC' })).data!.resort!;
    const i = (await gql(app, ResortQuery, { id: 'alta', units: 'IMPERIAL' })).data!.resort!;
    expect(i.elevation.unit).toBe('ft');
    expect(i.elevation.summit).toBe(Math.round(m.elevation.summit / 0.3048));
    expect(i.conditions.units).toEqual({ system: 'IMPERIAL', depth: 'in' });
    expect(i.conditions.snowDepthSummit).toBeCloseTo(m.conditions.snowDepthSummit / 2.54, 0);
  });

  it('unknown ids are NOT_FOUND, malformed ones BAD_USER_INPUT, bounds as on REST', async () => {
    expect((await gql(app, ResortQuery, { id: 'atlantis' })).errors![0]!.extensions!.code).toBe('NOT_FOUND');
    expect((await gql(app, ResortQuery, { id: 'no spaces' })).errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    const badLimit = await gql(app, BadArgsQuery, { limit: 51, days: 7 });
    expect(badLimit.errors!.map((e) => [e.message, e.extensions!.code])).toEqual([['limit must be <= 50', 'BAD_USER_INPUT']]);
    const bad = await gql(app, BadArgsQuery, { limit: 5, days: 61 });
    expect(bad.errors!.map((e) => e.message)).toEqual(['days must be <= 60']);
    const rest = await getJson(app, '/api/insights/snow?days=61');
    expect(rest.body.detail).toBe('days must be <= 60');
    // A NUL is where SQLite's LIKE stops reading: the search would match every resort.
    const nul = await getJson(app, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query($q: String) { resorts(filter: { q: $q }) { total } }', variables: { q: 'vail\u0000' } }),
    });
    expect(nul.body.errors.map((e: { message: string }) => e.message)).toEqual([
      'q must be free of control, format and line-separator characters (Unicode Cc, Cf, Zl, Zp)',
    ]);
    expect(nul.body.data?.resorts ?? null).toBeNull();
    // Plain text in every text argument: checked before spaces are trimmed, and no lone surrogate.
    const text = async (query: string, variables: Record<string, unknown>) => {
      const r = await getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
      return r.body.errors?.map((e: { message: string }) => e.message);
    };
    const search = 'query($q: String) { resorts(filter: { q: $q }) { total } }';
    expect(await text(search, { q: '\tvail' })).toEqual(['q must be free of control, format and line-separator characters (Unicode Cc, Cf, Zl, Zp)']);
    expect(await text(search, { q: 'vail\n' })).toEqual(['q must be free of control, format and line-separator characters (Unicode Cc, Cf, Zl, Zp)']);
    expect(await text(search, { q: '\ud800vail' })).toEqual(['q must be well-formed Unicode (no lone surrogates)']);
    expect(await text(search, { q: ' vail ' })).toBeUndefined();
    const cities = 'query($p: String!) { cities(prefix: $p) { city } }';
    expect(await text(cities, { p: '\u0000den' })).toEqual(['prefix must be free of control, format and line-separator characters (Unicode Cc, Cf, Zl, Zp)']);
    expect(await text('query($n: String!) { city(name: $n) { city } }', { n: 'Denver\r' })).toEqual([
      // As REST names it (argsOf): the city's parameter of /api/city/{city}.
      'city must be free of control, format and line-separator characters (Unicode Cc, Cf, Zl, Zp)',
    ]);
    // Bytes that are not UTF-8 are the client's mistake, told; not U+FFFD searched for.
    const bytes = Buffer.concat([Buffer.from('{"query":"{ cities(prefix: \\"Den'), Buffer.from([0xff, 0xfe]), Buffer.from('\\") { city } }"}')]);
    const raw = await getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes });
    expect(raw.status).toBe(400);
    expect(raw.body.errors.map((e: { message: string }) => e.message)).toEqual(['POST body is not valid UTF-8.']);
    // A GET's query string is read as strictly as a REST path's: no broken escape becomes another word.
    const broken = await getJson(app, `/graphql?query=${encodeURIComponent('{ resorts { total } }')}&operationName=%FF`);
    expect(broken.status).toBe(400);
    expect(broken.body.errors.map((e: { message: string }) => e.message)).toEqual(['The operationName parameter is not valid percent-encoded UTF-8.']);
  });

  it('rankings, insights, comparison and health', async () => {
    const r = await gql(app, RankingsQuery);
    expect(r.errors).toBeUndefined();
    const d = r.data!;
    expect(d.topSnow!.resorts.map((e) => e.rank)).toEqual(d.topSnow!.resorts.map((_, i) => i + 1));
    const rest = (await getJson(app, '/api/conditions/top-snow?limit=5')).body;
    expect(d.topSnow!.resorts.map((e) => e.resort.id)).toEqual(rest.resorts.map((e: { resort: { id: string } }) => e.resort.id));
    expect(d.openNow!.resorts.length).toBeGreaterThan(0);
    expect(d.openNow!.resorts.every((e) => e.openTrailsPct >= 75)).toBe(true);
    expect(d.stormWatch!.resorts.length).toBeGreaterThan(0);
    expect(d.stormWatch!.resorts.every((e) => e.snowfall48h >= d.stormWatch!.threshold48h)).toBe(true);
    expect(d.snowInsights).toMatchObject({ days: 14, from: '2027-01-19', to: '2027-02-01' });
    expect(d.compareResorts!.differences.summitElevation).toBe(3216 - 3353);
    expect(d.compareResorts!.distanceKm).toBeLessThan(5);
    expect(d.health).toEqual({ status: 'ok', timestamp: '2027-02-01T08:30:00.000Z' });
  });

  it('crosses the two services: resorts near a ZIP, ZIPs near a resort', async () => {
    const r = await gql(app, CrossQuery);
    expect(r.errors).toBeUndefined();
    const zip = r.data!.zip!;
    expect(zip.city).toBe('Vail');
    expect(zip.nearbyResorts![0]!.resort.id).toBe('vail');
    const ids = zip.nearbyResorts!.map((n) => n.resort.id);
    expect(ids).toContain('beaver-creek');
    const center = (await getJson(app, '/api/zip/81657')).body;
    for (const n of zip.nearbyResorts!) {
      expect(n.distanceMiles).toBeLessThanOrEqual(30);
      expect(n.distanceMiles).toBeCloseTo(haversineMiles(center.lat, center.lng, n.resort.location.lat, n.resort.location.lng), 1);
    }
    const stowe = r.data!.resort!.nearbyZips!;
    expect(stowe.length).toBeGreaterThan(0);
    expect(stowe.every((z) => z.stateCode === 'VT' && z.distanceMiles <= 10)).toBe(true);
    expect(r.data!.far!.nearbyZips).toEqual([]);
  });

  it('resorts(limit: 200) with trails, lifts, weather and conditions runs a constant number of SQL statements', async () => {
    // A server of its own, measured in the hour after its start: its warm-up built the snapshots of
    // the hour it started in, so none of this hour's is cached yet and every resort is loaded here.
    let clock = new Date('2027-02-01T08:30:00Z');
    const cold = await startTestServer({ privateDb: true, countStatements: true, now: () => clock });
    clock = new Date('2027-02-01T09:30:00Z');
    try {
      const count = async (limit: number, offset: number) => {
        const before = cold.statementCount();
        const r = await gql(cold, ListQuery, { limit, offset });
        expect(r.errors).toBeUndefined();
        expect(r.data!.resorts!.resorts).toHaveLength(limit);
        return cold.statementCount() - before;
      };
      const before = cold.statementCount();
      await gql(cold, TypenameQuery);
      const keyCheck = cold.statementCount() - before;
      // The first local time a process works out reads every zone's offsets (once, not per resort).
      await count(1, 0);
      const few = await count(3, 1);
      const many = await count(200, 4);
      expect(many).toBe(few);
      // count + page, then one batch each for weather, the last snowfall before it, trails, lifts and live lifts.
      expect(many - keyCheck).toBe(7);
    } finally {
      await cold.close();
    }
  });
});
