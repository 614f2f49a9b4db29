import { describe, expect, it } from 'vitest';
import {
  lastSnowfall,
  liftState,
  MEASURABLE_SNOWFALL_CM,
  operatingStatus,
  primarySurface,
  seasonStart,
  skiableShare,
  snowReport,
  trailState,
} from '../../src/domain/conditions.js';
import { formatHours } from '../../src/domain/weather/hourly.js';
import { inSeason, plannedSeason } from '../../src/domain/season.js';
import type { LiftFacts, LiftType, ResortFacts, TrailFacts } from '../../src/domain/resort.js';
import type { DailyWeather } from '../../src/domain/weather/daily.js';

/**
 * The README's operating rules, each at its boundary: closed under 20 cm of base, trails opening
 * between 20 and 80 cm, wind holds at 75/95/110 km/h, the planned season dates by hemisphere.
 */

const resort = (over: Partial<ResortFacts> = {}): ResortFacts => ({
  id: 'r',
  name: 'R',
  countryCode: 'US',
  countryName: 'United States',
  region: 'CO',
  continent: 'North America',
  lat: 39.6,
  lng: -106.4,
  baseElevation: 2500,
  summitElevation: 3500,
  liftCount: 10,
  trailCount: 50,
  website: null,
  timezone: 'America/Denver',
  ...over,
});

const day = (date: string, over: Partial<DailyWeather> = {}): DailyWeather => ({
  date,
  baseTempMin: -8,
  baseTempMax: -2,
  summitTempMin: -14,
  summitTempMax: -8,
  precipitationMm: 0,
  precipitationProbability: 0,
  snowfallBaseCm: 0,
  snowfallSummitCm: 0,
  snowDepthBaseCm: 100,
  snowDepthSummitCm: 150,
  seasonSnowfallCm: 300,
  windSpeedBaseKmh: 10,
  windGustBaseKmh: 20,
  windSpeedSummitKmh: 20,
  windGustSummitKmh: 30,
  windDirectionDeg: 270,
  snowLineM: 1500,
  midTempMin: -11,
  midTempMax: -5,
  snowfallMidCm: 0,
  snowDepthMidCm: 125,
  windSpeedMidKmh: 15,
  windGustMidKmh: 25,
  ...over,
});

const trail = (openThreshold: number, over: Partial<TrailFacts> = {}): TrailFacts => ({
  id: 't',
  resortId: 'r',
  name: 'T',
  difficulty: 'ADVANCED',
  rating: 'black',
  lengthM: 1000,
  openThreshold,
  groomThreshold: 0.5,
  source: 'generated',
  ...over,
});

const lift = (type: LiftType, openThreshold = 0.5): LiftFacts => ({
  id: 'l',
  resortId: 'r',
  name: 'L',
  type,
  seats: 4,
  capacityPerHour: 2000,
  openThreshold,
  source: 'generated',
});

const MIDWINTER = '2027-01-15';

describe('planned season dates', () => {
  it('north: 22 November to 12 April; summits of 3000 m and more three weeks longer each way', () => {
    expect(plannedSeason(MIDWINTER, 45, 2999)).toEqual({ opens: '2026-11-22', closes: '2027-04-12' });
    expect(plannedSeason(MIDWINTER, 45, 3000)).toEqual({ opens: '2026-11-01', closes: '2027-05-03' });
  });

  it('south: 13 June to 5 October; high summits two weeks longer each way', () => {
    expect(plannedSeason('2027-07-15', -40, 2000)).toEqual({ opens: '2027-06-13', closes: '2027-10-05' });
    expect(plannedSeason('2027-07-15', -40, 3200)).toEqual({ opens: '2027-05-30', closes: '2027-10-19' });
    // The equator counts as north.
    expect(plannedSeason(MIDWINTER, 0, 2000).opens).toBe('2026-11-22');
  });

  it('between seasons it is the next season; the closing day still belongs to the current one', () => {
    expect(plannedSeason('2027-04-12', 45, 2000)).toEqual({ opens: '2026-11-22', closes: '2027-04-12' });
    expect(plannedSeason('2027-04-13', 45, 2000)).toEqual({ opens: '2027-11-22', closes: '2028-04-12' });
    expect(plannedSeason('2026-11-21', 45, 2000)).toEqual({ opens: '2026-11-22', closes: '2027-04-12' });
    expect(plannedSeason('2027-10-06', -40, 2000)).toEqual({ opens: '2028-06-13', closes: '2028-10-05' });
    expect(plannedSeason('2027-01-01', -40, 2000)).toEqual({ opens: '2027-06-13', closes: '2027-10-05' });
  });

  it('inSeason includes both ends', () => {
    const s = { opens: '2026-11-22', closes: '2027-04-12' };
    expect(['2026-11-21', '2026-11-22', '2027-04-12', '2027-04-13'].map((d) => inSeason(d, s))).toEqual([false, true, true, false]);
  });
});

describe('operating status', () => {
  it('closed under 20 cm of base, open from 20 cm, in season', () => {
    expect(operatingStatus(resort(), day(MIDWINTER, { snowDepthBaseCm: 19.9 }), MIDWINTER)).toMatchObject({
      status: 'CLOSED',
      reason: 'not enough snow (base under 20 cm)',
    });
    expect(operatingStatus(resort(), day(MIDWINTER, { snowDepthBaseCm: 20 }), MIDWINTER)).toMatchObject({ status: 'OPEN', reason: 'open for the season' });
    expect(operatingStatus(resort(), undefined, MIDWINTER).status).toBe('CLOSED');
  });

  it('closed out of season whatever the snow, saying when it opens', () => {
    expect(operatingStatus(resort({ summitElevation: 2500 }), day('2027-05-01', { snowDepthBaseCm: 300 }), '2027-05-01')).toMatchObject({
      status: 'CLOSED',
      reason: 'out of season; opens 2027-11-22',
    });
  });
});

describe('skiable share', () => {
  it('rises linearly from 0.2 at 20 cm to 1 at 80 cm, and is 0 when closed', () => {
    expect(skiableShare('OPEN', 20)).toBeCloseTo(0.2, 10);
    expect(skiableShare('OPEN', 50)).toBeCloseTo(0.6, 10);
    expect(skiableShare('OPEN', 80)).toBe(1);
    expect(skiableShare('OPEN', 500)).toBe(1);
    expect(skiableShare('OPEN', 0)).toBe(0);
    expect(skiableShare('CLOSED', 100)).toBe(0);
  });
});

describe('trails', () => {
  it('open when the share reaches their threshold', () => {
    expect(trailState(trail(0.6), 0.6, 0).status).toBe('OPEN');
    expect(trailState(trail(0.6), 0.59, 0)).toEqual({ status: 'CLOSED', grooming: 'UNGROOMED' });
    expect(trailState(trail(0), 0, 0).status).toBe('CLOSED');
  });

  it('gentle trails are groomed; steep ones below their groom threshold unless 20 cm fell', () => {
    expect(trailState(trail(0.2, { difficulty: 'BEGINNER', groomThreshold: 0.9 }), 1, 50).grooming).toBe('GROOMED');
    expect(trailState(trail(0.2, { difficulty: 'INTERMEDIATE', groomThreshold: 0.9 }), 1, 50).grooming).toBe('GROOMED');
    expect(trailState(trail(0.2, { groomThreshold: 0.34 }), 1, 19.9).grooming).toBe('GROOMED');
    expect(trailState(trail(0.2, { groomThreshold: 0.34 }), 1, 20).grooming).toBe('UNGROOMED');
    expect(trailState(trail(0.2, { groomThreshold: 0.35 }), 1, 0).grooming).toBe('UNGROOMED');
  });

  it('a 20 cm base opens the first fifth of the terrain, 80 cm all of it', () => {
    const trails = [0.1, 0.2, 0.21, 0.5, 1].map((t) => trail(t));
    const at = (cm: number) => trails.map((t) => trailState(t, skiableShare('OPEN', cm), 0).status);
    expect(at(20)).toEqual(['OPEN', 'OPEN', 'CLOSED', 'CLOSED', 'CLOSED']);
    expect(at(80)).toEqual(['OPEN', 'OPEN', 'OPEN', 'OPEN', 'OPEN']);
  });
});

describe('lifts and wind', () => {
  it('an exposed chairlift holds from 75 km/h summit gusts', () => {
    expect(liftState(lift('CHAIRLIFT'), 1, 74.9)).toBe('OPEN');
    expect(liftState(lift('CHAIRLIFT'), 1, 75)).toBe('HOLD');
    expect(liftState(lift('GONDOLA'), 1, 75)).toBe('HOLD');
  });

  it('cable cars and funiculars hold from 95 km/h', () => {
    for (const type of ['CABLE_CAR', 'FUNICULAR'] as const) {
      expect(liftState(lift(type), 1, 94.9)).toBe('OPEN');
      expect(liftState(lift(type), 1, 95)).toBe('HOLD');
    }
  });

  it('lower-mountain lifts keep running until 110 km/h, when every aerial lift stops', () => {
    expect(liftState(lift('CHAIRLIFT', 0.24), 1, 109.9)).toBe('OPEN');
    expect(liftState(lift('CHAIRLIFT', 0.24), 1, 110)).toBe('HOLD');
    expect(liftState(lift('CHAIRLIFT', 0.25), 1, 75)).toBe('HOLD');
  });

  it('surface lifts never hold for wind', () => {
    for (const type of ['MAGIC_CARPET', 'ROPE_TOW', 'PLATTER', 'T_BAR'] as const) expect(liftState(lift(type), 1, 200)).toBe('OPEN');
  });

  it('closed when nothing is skiable, scheduled just below its threshold, closed further below', () => {
    expect(liftState(lift('CHAIRLIFT', 0.1), 0, 0)).toBe('CLOSED');
    expect(liftState(lift('CHAIRLIFT', 0.5), 0.5, 0)).toBe('OPEN');
    expect(liftState(lift('CHAIRLIFT', 0.5), 0.45, 0)).toBe('SCHEDULED');
    expect(liftState(lift('CHAIRLIFT', 0.5), 0.4, 0)).toBe('SCHEDULED');
    expect(liftState(lift('CHAIRLIFT', 0.5), 0.39, 0)).toBe('CLOSED');
  });
});

describe('surface', () => {
  const last = (over: Partial<DailyWeather>, earlier: Partial<DailyWeather> = {}) =>
    primarySurface([day('2027-01-13', earlier), day('2027-01-14', earlier), day(MIDWINTER, over)], MIDWINTER);

  it('names the surface by the rules, in their order', () => {
    expect(last({ snowDepthBaseCm: 0 })).toBe('NO_SNOW');
    expect(last({ snowDepthBaseCm: 29 })).toBe('THIN_COVER');
    expect(last({ snowfallSummitCm: 10 })).toBe('POWDER');
    expect(last({ snowfallSummitCm: 10, windGustSummitKmh: 60 })).toBe('WIND_BLOWN');
    expect(last({ precipitationMm: 3, baseTempMin: 0 })).toBe('ICY');
    expect(last({ precipitationMm: 3, baseTempMin: 1 })).toBe('WET_SNOW');
    expect(last({ snowfallSummitCm: 5 }, { snowfallSummitCm: 5 })).toBe('PACKED_POWDER');
    expect(last({ baseTempMax: 4, baseTempMin: -2 })).toBe('CORN');
    expect(last({ baseTempMax: 4, baseTempMin: 1 })).toBe('SPRING_SNOW');
    expect(last({ baseTempMax: 4, baseTempMin: -1 })).toBe('GRANULAR');
    expect(last({ baseTempMax: -1 })).toBe('HARD_PACKED');
    expect(last({ baseTempMax: 0 })).toBe('MACHINE_GROOMED');
    expect(last({ snowfallSummitCm: 1 })).toBe('MACHINE_GROOMED');
    expect(primarySurface([], MIDWINTER)).toBe('NO_SNOW');
  });

  it('each rule at its boundary', () => {
    expect(last({ snowDepthBaseCm: 30 })).toBe('HARD_PACKED');
    expect(last({ snowfallSummitCm: 9.9 })).toBe('MACHINE_GROOMED');
    expect(last({ snowfallSummitCm: 10, windGustSummitKmh: 59.9 })).toBe('POWDER');
    // Rain is more than 2 mm on a day without snow at the base, on one of the last two days.
    expect(last({ precipitationMm: 2, baseTempMin: 1 })).toBe('SPRING_SNOW');
    expect(last({ precipitationMm: 3, snowfallBaseCm: 1, baseTempMin: -3 })).toBe('HARD_PACKED');
    expect(primarySurface([day('2027-01-14', { precipitationMm: 5 }), day(MIDWINTER)], MIDWINTER)).toBe('ICY');
    expect(primarySurface([day('2027-01-13', { precipitationMm: 5 }), day('2027-01-14'), day(MIDWINTER)], MIDWINTER)).toBe('HARD_PACKED');
    expect(last({ baseTempMax: 3, baseTempMin: -2 })).toBe('MACHINE_GROOMED');
    expect(last({ baseTempMax: 3.1, baseTempMin: -1 })).toBe('GRANULAR');
    expect(last({ baseTempMax: 2, baseTempMin: 0 })).toBe('MACHINE_GROOMED');
    expect(last({ baseTempMax: 2, baseTempMin: 0.1 })).toBe('SPRING_SNOW');
    // Packed powder counts the last three days, not four.
    expect(
      primarySurface([day('2027-01-12', { snowfallSummitCm: 9 }), day('2027-01-13', { snowfallSummitCm: 9 }), day('2027-01-14'), day(MIDWINTER)], MIDWINTER),
    ).toBe('MACHINE_GROOMED');
    expect(primarySurface([day('2027-01-13', { snowfallSummitCm: 9 }), day('2027-01-14', { snowfallSummitCm: 6 }), day(MIDWINTER)], MIDWINTER)).toBe(
      'PACKED_POWDER',
    );
  });

  it('ignores forecast days after today', () => {
    expect(primarySurface([day(MIDWINTER), day('2027-01-16', { snowfallSummitCm: 40 })], MIDWINTER)).toBe('HARD_PACKED');
  });
});

describe('the snow report', () => {
  it('at midnight, new snow is the last 1, 2, 3 and 7 whole days, the last snowfall yesterday; and what runs', () => {
    const days = Array.from({ length: 9 }, (_, i) => day(`2027-01-${String(7 + i).padStart(2, '0')}`, { snowfallSummitCm: i + 1, snowDepthBaseCm: 50 }));
    days.push(day('2027-01-16', { snowfallSummitCm: 100 }));
    const { report, trailStates, liftStates } = snowReport(resort(), days, [trail(0.5), trail(0.7)], [lift('T_BAR', 0.1), lift('CHAIRLIFT', 0.9)], {
      date: MIDWINTER,
      hour: 0,
    });
    // Days of 1…9 cm from 7 to 15 January: before 00:00 on the 15th come 8, 7+8, 6+7+8 and 2+…+8 cm;
    // none of the 15th's has fallen yet, so the last snowfall is the 14th's.
    expect(report).toEqual({
      date: MIDWINTER,
      status: 'OPEN',
      statusReason: 'open for the season',
      season: { opens: '2026-11-01', closes: '2027-05-03' },
      snowDepthBaseCm: 50,
      snowDepthMidCm: 125,
      snowDepthSummitCm: 150,
      newSnow24hCm: 8,
      newSnow48hCm: 15,
      newSnow72hCm: 21,
      newSnow7dCm: 35,
      seasonSnowfallCm: 300,
      lastSnowfall: { date: '2027-01-14', cm: 8 },
      surface: 'PACKED_POWDER',
      skiableShare: 0.6,
      openTrails: 1,
      totalTrails: 2,
      openLifts: 1,
      totalLifts: 2,
      hour: 0,
    });
    expect(trailStates.map((t) => t.status)).toEqual(['OPEN', 'CLOSED']);
    expect(liftStates).toEqual(['OPEN', 'CLOSED']);
  });

  it('takes depths, season snowfall and summit gusts from today, and counts only lifts that run', () => {
    const windy = day(MIDWINTER, { snowDepthBaseCm: 100, snowDepthSummitCm: 222.22, seasonSnowfallCm: 345, windGustSummitKmh: 120 });
    const { report, liftStates } = snowReport(resort(), [windy], [], [lift('CHAIRLIFT', 0), lift('T_BAR', 0)], { date: MIDWINTER, hour: 12 });
    expect(liftStates).toEqual(['HOLD', 'OPEN']);
    expect(report).toMatchObject({ snowDepthSummitCm: 222.2, seasonSnowfallCm: 345, openLifts: 1, totalLifts: 2 });
    const none = snowReport(resort(), [], [], [lift('CHAIRLIFT', 0)], { date: MIDWINTER, hour: 12 }).report;
    expect(none).toMatchObject({ snowDepthBaseCm: 0, snowDepthSummitCm: 0, seasonSnowfallCm: 0, openLifts: 0 });
  });

  it('without a day for today it is closed and reports no new 24 h snow', () => {
    const { report } = snowReport(resort(), [day('2027-01-14', { snowfallSummitCm: 7 })], [trail(0.1)], [], { date: MIDWINTER, hour: 0 });
    expect(report).toMatchObject({ status: 'CLOSED', newSnow24hCm: 7, newSnow72hCm: 7, openTrails: 0, skiableShare: 0 });
  });
});

describe('the season start and the last snowfall', () => {
  it('the season starts Aug 1 north of the equator and Feb 1 south, this year or last', () => {
    expect(seasonStart(40, '2027-01-15')).toBe('2026-08-01');
    expect(seasonStart(40, '2026-08-01')).toBe('2026-08-01');
    expect(seasonStart(40, '2026-07-31')).toBe('2025-08-01');
    expect(seasonStart(-37, '2027-03-01')).toBe('2027-02-01');
    expect(seasonStart(-37, '2027-01-31')).toBe('2026-02-01');
  });

  it('the newest day with measurable summit snow since the season began; today only up to the hour; else the earlier one', () => {
    const r = resort();
    const hourly = (date: string, hours: number[]) =>
      day(date, { snowfallSummitCm: hours.reduce((a, b) => a + b, 0), snowfallSummitHourly: formatHours(hours) });
    const quiet = (date: string) => day(date, { snowfallSummitCm: 0 });
    // 5 cm on the 12th, a trace under the threshold on the 13th, nothing on the 14th.
    const seen = [day('2027-01-12', { snowfallSummitCm: 5 }), day('2027-01-13', { snowfallSummitCm: MEASURABLE_SNOWFALL_CM - 0.05 }), quiet('2027-01-14')];
    expect(lastSnowfall(r, seen, '2027-01-15', 12, null)).toEqual({ date: '2027-01-12', cm: 5 });
    // The season's first day is in it (Aug 1 north); the day before is not.
    expect(lastSnowfall(r, [day('2026-08-01', { snowfallSummitCm: 3 })], '2027-01-15', 12, null)).toEqual({ date: '2026-08-01', cm: 3 });
    expect(lastSnowfall(r, [day('2026-07-31', { snowfallSummitCm: 3 })], '2027-01-15', 12, null)).toBeNull();
    // Exactly the threshold counts.
    expect(lastSnowfall(r, [day('2027-01-13', { snowfallSummitCm: MEASURABLE_SNOWFALL_CM })], '2027-01-15', 12, null)).toEqual({
      date: '2027-01-13',
      cm: MEASURABLE_SNOWFALL_CM,
    });
    // Today: 1 cm at 08:00 and 2 cm at 14:00; at 10:00 only the first has fallen.
    const today = hourly(
      '2027-01-15',
      Array.from({ length: 24 }, (_, h) => (h === 8 ? 1 : h === 14 ? 2 : 0)),
    );
    expect(lastSnowfall(r, [...seen, today], '2027-01-15', 10, null)).toEqual({ date: '2027-01-15', cm: 1 });
    expect(lastSnowfall(r, [...seen, today], '2027-01-15', 15, null)).toEqual({ date: '2027-01-15', cm: 3 });
    expect(lastSnowfall(r, [...seen, today], '2027-01-15', 8, null)).toEqual({ date: '2027-01-12', cm: 5 });
    // Nothing measurable among the days seen: the earlier snowfall, if it is in this season and before them.
    const none = [quiet('2027-01-13'), quiet('2027-01-14')];
    expect(lastSnowfall(r, none, '2027-01-15', 12, { date: '2027-01-02', cm: 7 })).toEqual({ date: '2027-01-02', cm: 7 });
    expect(lastSnowfall(r, none, '2027-01-15', 12, { date: '2026-07-30', cm: 7 })).toBeNull();
    expect(lastSnowfall(r, none, '2027-01-15', 12, { date: '2026-08-01', cm: 7 })).toEqual({ date: '2026-08-01', cm: 7 });
    expect(lastSnowfall(r, none, '2027-01-15', 12, { date: '2027-01-13', cm: 7 })).toBeNull();
    expect(lastSnowfall(r, none, '2027-01-15', 12, null)).toBeNull();
    expect(lastSnowfall(r, [], '2027-01-15', 12, { date: '2027-01-14', cm: 2 })).toEqual({ date: '2027-01-14', cm: 2 });
    expect(lastSnowfall(r, [], '2027-01-15', 12, { date: '2027-01-15', cm: 2 })).toBeNull();
    // A day before the season's start ends the search, even with snow on it.
    expect(lastSnowfall(r, [day('2026-07-20', { snowfallSummitCm: 9 }), quiet('2026-08-02')], '2026-08-03', 12, null)).toBeNull();
    // The first day in the list is read too.
    expect(lastSnowfall(r, [day('2027-01-10', { snowfallSummitCm: 4 }), quiet('2027-01-11')], '2027-01-15', 12, null)).toEqual({ date: '2027-01-10', cm: 4 });
  });
});
