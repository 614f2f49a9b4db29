import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { getJson, privateDatabase, startTestServer } from './helpers/server.js';

/**
 * The fuller snow report — new snow over 48 h, depth at mid-mountain, the last snowfall, the
 * forecast at mid-mountain — over every resort at instants fast-check picks across a season, on the
 * simulated generator (the server's clock moved, never waited for). Properties, not examples:
 * the new-snow windows nest, mid-mountain lies between base and summit, the last snowfall is a
 * snowy day of this season no later than the report, and REST says what GraphQL says.
 */

let now = Date.parse('2027-01-15T12:00:00Z');
let app: RunningApp;
beforeAll(async () => {
  app = await startTestServer({ dbPath: privateDatabase('gateway-snow-report-'), now: () => new Date(now) });
});
afterAll(() => app.close());

const FIELDS = `id name elevation { base summit }
  conditions(units: $units) {
    date updatedAt snowDepthBase snowDepthMid snowDepthSummit newSnow24h newSnow48h newSnow72h newSnow7d seasonSnowfall
    lastSnowfall { date amount }
  }
  metric: conditions(units: METRIC) { lastSnowfall { date amount } }
  imperial: conditions(units: IMPERIAL) { lastSnowfall { date amount } }
  forecast(units: $units) { date base { elevation tempMin tempMax } mid { elevation tempMin tempMax snowfall windSpeed windGust } summit { elevation tempMin tempMax } }`;

interface Report {
  id: string;
  elevation: { base: number; summit: number };
  conditions: {
    date: string;
    snowDepthBase: number;
    snowDepthMid: number;
    snowDepthSummit: number;
    newSnow24h: number;
    newSnow48h: number;
    newSnow72h: number;
    newSnow7d: number;
    lastSnowfall: { date: string; amount: number } | null;
  };
  /** The last snowfall in each unit system, whichever the report was asked in. */
  metric: { lastSnowfall: { date: string; amount: number } | null };
  imperial: { lastSnowfall: { date: string; amount: number } | null };
  forecast: {
    base: { elevation: number; tempMin: number; tempMax: number };
    mid: { elevation: number; tempMin: number; tempMax: number };
    summit: { elevation: number; tempMin: number; tempMax: number };
  }[];
}

async function everyResort(units: 'METRIC' | 'IMPERIAL'): Promise<Report[]> {
  const out: Report[] = [];
  for (let offset = 0; ; offset += 200) {
    const r = await getJson(app, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `query All($units: Units, $offset: Int) { resorts(paging: { limit: 200, offset: $offset }) { total resorts { ${FIELDS} } } }`,
        variables: { units, offset },
      }),
    });
    expect(r.body.errors).toBeUndefined();
    out.push(...r.body.data.resorts.resorts);
    if (out.length >= r.body.data.resorts.total) return out;
  }
}

/** The season's start for the last snowfall: Aug 1 north, Feb 1 south. */
const seasonStart = (date: string, south: boolean) => {
  const md = south ? '02-01' : '08-01';
  const start = `${date.slice(0, 4)}-${md}`;
  return start <= date ? start : `${Number(date.slice(0, 4)) - 1}-${md}`;
};

describe('the fuller snow report, over every resort', () => {
  it('at any hour of a season: new snow nests (24 h ≤ 48 h ≤ 72 h ≤ 7 d), mid-mountain lies between base and summit, the last snowfall is a snowy day of this season', async () => {
    const south = new Map<string, boolean>(
      ((await getJson(app, '/api/resorts?limit=200')).body.resorts as { id: string; location: { lat: number } }[]).map((r) => [r.id, r.location.lat < 0]),
    );
    let snowfalls = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 150 * 24 }), fc.constantFrom('METRIC' as const, 'IMPERIAL' as const), async (hours, units) => {
        now = Date.parse('2026-11-01T00:00:00Z') + hours * 3_600_000;
        const reports = await everyResort(units);
        expect(reports.length).toBeGreaterThanOrEqual(241);
        for (const r of reports) {
          const c = r.conditions;
          expect(c.newSnow24h, r.id).toBeLessThanOrEqual(c.newSnow48h);
          expect(c.newSnow48h, r.id).toBeLessThanOrEqual(c.newSnow72h);
          expect(c.newSnow72h, r.id).toBeLessThanOrEqual(c.newSnow7d);
          expect(c.snowDepthMid, r.id).toBeGreaterThanOrEqual(Math.min(c.snowDepthBase, c.snowDepthSummit) - 0.1);
          expect(c.snowDepthMid, r.id).toBeLessThanOrEqual(Math.max(c.snowDepthBase, c.snowDepthSummit) + 0.1);
          if (c.lastSnowfall) {
            expect(c.lastSnowfall.date <= c.date, r.id).toBe(true);
            expect(c.lastSnowfall.date >= seasonStart(c.date, south.get(r.id) ?? false), r.id).toBe(true);
          }
          // The units asked for are one of the two systems; in both, the same day, at least
          // measurable (0.25 cm, 0.1 in), the inches the centimetres / 2.54 (each rounded to 0.1).
          expect(c.lastSnowfall, r.id).toEqual((units === 'METRIC' ? r.metric : r.imperial).lastSnowfall);
          const [cm, inches] = [r.metric.lastSnowfall, r.imperial.lastSnowfall];
          if (cm && inches) {
            snowfalls++;
            expect(inches.date, r.id).toBe(cm.date);
            expect(cm.amount, r.id).toBeGreaterThanOrEqual(0.25);
            expect(inches.amount, r.id).toBeGreaterThanOrEqual(0.1);
            expect(Math.abs(inches.amount - cm.amount / 2.54), r.id).toBeLessThanOrEqual(0.05 + 0.05 / 2.54 + 1e-9);
          } else expect([cm, inches], r.id).toEqual([null, null]);
          // Snow in the last 24 hours is snow on one of the last two days: the last snowfall is no older.
          if (c.newSnow24h >= 1) expect(c.lastSnowfall, r.id).not.toBeNull();
          for (const d of r.forecast) {
            expect(d.mid.elevation, r.id).toBeGreaterThan(d.base.elevation);
            expect(d.mid.elevation, r.id).toBeLessThan(d.summit.elevation);
            // Halfway up, the day's mean temperature lies between the base's and the summit's (the generator's lapse rate).
            const mean = (l: { tempMin: number; tempMax: number }) => (l.tempMin + l.tempMax) / 2;
            expect(mean(d.mid), r.id).toBeLessThanOrEqual(mean(d.base) + 0.1);
            expect(mean(d.mid), r.id).toBeGreaterThanOrEqual(mean(d.summit) - 0.1);
          }
        }
      }),
      { numRuns: 12 },
    );
    // The conversion above was checked, not skipped for want of snow.
    expect(snowfalls).toBeGreaterThan(0);
  }, 120_000);

  it('REST’s detail, weather and compare carry the same numbers as GraphQL, in both unit systems', async () => {
    now = Date.parse('2027-01-20T15:00:00Z');
    for (const units of ['METRIC', 'IMPERIAL'] as const) {
      const [vail] = (await everyResort(units)).filter((r) => r.id === 'vail');
      const q = units === 'IMPERIAL' ? '?units=imperial' : '';
      const detail = (await getJson(app, `/api/resorts/vail${q}`)).body;
      expect(detail.snow).toMatchObject({
        depthBase: vail!.conditions.snowDepthBase,
        depthMid: vail!.conditions.snowDepthMid,
        depthSummit: vail!.conditions.snowDepthSummit,
        newSnow24h: vail!.conditions.newSnow24h,
        newSnow48h: vail!.conditions.newSnow48h,
        lastSnowfall: vail!.conditions.lastSnowfall,
      });
      const weather = (await getJson(app, `/api/resorts/vail/weather${q}`)).body;
      expect(weather.forecast.map((d: { mid: unknown }) => d.mid)).toEqual(vail!.forecast.map((d) => d.mid));
      expect(detail.forecast.map((d: { mid: unknown }) => d.mid)).toEqual(vail!.forecast.map((d) => d.mid));
      const compare = (await getJson(app, `/api/resorts/vail/compare?with=zermatt${units === 'IMPERIAL' ? '&units=imperial' : ''}`)).body;
      expect(compare.resort.conditions).toMatchObject({ snowDepthMid: vail!.conditions.snowDepthMid, newSnow48h: vail!.conditions.newSnow48h });
      expect(compare.differences.snowDepthMid).toBeCloseTo(vail!.conditions.snowDepthMid - compare.with.conditions.snowDepthMid, 1);
      expect(compare.differences.newSnow48h).toBeCloseTo(vail!.conditions.newSnow48h - compare.with.conditions.newSnow48h, 1);
    }
    // Halfway up, to the metre (feet in IMPERIAL).
    const metric = (await getJson(app, '/api/resorts/vail/weather')).body.forecast[0];
    expect(metric.mid.elevation).toBe(Math.round((metric.base.elevation + metric.summit.elevation) / 2));
  });

  it('the last snowfall reaches back past the week a report reads, over the stored window', async () => {
    now = Date.parse('2027-01-20T15:00:00Z');
    const reports = await everyResort('METRIC');
    const olderThanAWeek = reports.filter(
      (r) => r.conditions.lastSnowfall && Date.parse(r.conditions.date) - Date.parse(r.conditions.lastSnowfall.date) > 8 * 86_400_000,
    );
    // The week's new snow is nothing for those: their last snowfall came from further back.
    expect(olderThanAWeek.length).toBeGreaterThan(0);
    for (const r of olderThanAWeek) expect(r.conditions.newSnow7d, r.id).toBe(0);
  });
});
