import { describe, expect, it } from 'vitest';
import type { LiftFacts, ResortFacts, TrailFacts } from '../../src/domain/resort.js';
import { addDays } from '../../src/domain/dates.js';
import { buildSnapshot, hourOf, memo, NEVER_SYNCED, type LiveLift, type SnapshotDay } from '../../src/data/snapshots/snapshot.js';
import { conditionsView, forecastView, liftSummaryView, stormOutlookView, todayOf, trailSummaryView, weatherView } from '../../src/data/snapshots/views.js';

/**
 * A made-up resort's snapshot (data/snapshots/snapshot.ts) and the views built from it
 * (views.ts): every number of a day differs from the others, so a field read from another's
 * place shows in the answer.
 */
const RESORT: ResortFacts = {
  id: 'peak',
  name: 'Peak',
  countryCode: 'CH',
  countryName: 'Switzerland',
  region: 'Valais',
  continent: 'Europe',
  lat: 46,
  lng: 7.5,
  baseElevation: 1000,
  summitElevation: 3001,
  liftCount: 3,
  trailCount: 4,
  website: null,
  timezone: 'Europe/Zurich',
};
const TODAY = '2027-01-15';
/** 13:00 in Zurich. */
const AS_OF = new Date('2027-01-15T12:00:00Z');

/** Day `i` days from today: each field its own number, growing with i. */
const day = (i: number, over: Partial<SnapshotDay> = {}): SnapshotDay => ({
  date: addDays(TODAY, i),
  source: i > 0 ? 'forecast' : 'observed',
  syncedAt: `2027-01-15T0${Math.min(9, Math.max(0, i + 4))}:00:00.000Z`,
  baseTempMin: -10 + i,
  baseTempMax: -2 + i,
  summitTempMin: -20 + i,
  summitTempMax: -12 + i,
  precipitationMm: 3 + i / 10,
  precipitationProbability: 50 + i,
  snowfallBaseCm: 1 + i / 10,
  snowfallSummitCm: 5 + i,
  snowDepthBaseCm: 80 + i,
  snowDepthSummitCm: 200 + i,
  seasonSnowfallCm: 400 + i,
  windSpeedBaseKmh: 10 + i,
  windGustBaseKmh: 20 + i,
  windSpeedSummitKmh: 40 + i,
  windGustSummitKmh: 70 + i,
  windDirectionDeg: 180 + i,
  snowLineM: 900 + i,
  midTempMin: -15 + i,
  midTempMax: -7 + i,
  snowfallMidCm: 3 + i,
  snowDepthMidCm: 140 + i,
  windSpeedMidKmh: 25 + i,
  windGustMidKmh: 45 + i,
  ...over,
});
const DAYS = Array.from({ length: 16 }, (_, k) => day(k - 8));
/** Each trail's grooming, as the day's report decides it. */
const GROOMING = ['GROOMED', 'GROOMED', 'UNGROOMED', 'UNGROOMED', 'UNGROOMED'];
const trail = (n: number, difficulty: TrailFacts['difficulty'], openThreshold: number, source: TrailFacts['source'] = 'generated'): TrailFacts => ({
  id: `peak:t${n}`,
  resortId: 'peak',
  name: `Trail ${n}`,
  difficulty,
  rating: difficulty.toLowerCase(),
  lengthM: 1000 * n,
  openThreshold,
  groomThreshold: 0.5,
  source,
});
const TRAILS = [trail(1, 'BEGINNER', 0), trail(2, 'INTERMEDIATE', 0.1), trail(3, 'EXPERT', 2), trail(4, 'BEGINNER', 2), trail(5, 'ADVANCED', 2, 'openskimap')];
const lift = (n: number, type: LiftFacts['type'], capacityPerHour: number | null, openThreshold: number): LiftFacts => ({
  id: `peak:l${n}`,
  resortId: 'peak',
  name: `Lift ${n}`,
  type,
  seats: 4,
  capacityPerHour,
  openThreshold,
  source: 'generated',
});
const LIFTS = [lift(1, 'CHAIRLIFT', 2400, 0), lift(2, 'GONDOLA', null, 0), lift(3, 'CHAIRLIFT', 1800, 2)];
const snapshot = (over: { days?: SnapshotDay[]; live?: LiveLift[] } = {}) =>
  buildSnapshot({ resort: RESORT, days: over.days ?? DAYS, trails: TRAILS, lifts: LIFTS, live: over.live ?? [], asOf: AS_OF });

describe('a resort snapshot', () => {
  it('the local date and hour, today’s source and sync time, the report and each trail’s and lift’s state', () => {
    const s = snapshot();
    expect([s.today, s.asOf, s.updatedAt, s.source, s.syncedAt]).toEqual([TODAY, AS_OF, '2027-01-15T13:00:00+01:00', 'observed', '2027-01-15T04:00:00.000Z']);
    expect(s.days).toBe(DAYS);
    expect(s.report).toMatchObject({ openLifts: 2, totalLifts: 3, openTrails: 2, totalTrails: 5 });
    expect(s.trails.all()).toEqual([
      {
        id: 'peak:t1',
        resortId: 'peak',
        name: 'Trail 1',
        difficulty: 'BEGINNER',
        rating: 'beginner',
        lengthM: 1000,
        source: 'generated',
        status: 'OPEN',
        grooming: expect.any(String),
      },
      {
        id: 'peak:t2',
        resortId: 'peak',
        name: 'Trail 2',
        difficulty: 'INTERMEDIATE',
        rating: 'intermediate',
        lengthM: 2000,
        source: 'generated',
        status: 'OPEN',
        grooming: expect.any(String),
      },
      {
        id: 'peak:t3',
        resortId: 'peak',
        name: 'Trail 3',
        difficulty: 'EXPERT',
        rating: 'expert',
        lengthM: 3000,
        source: 'generated',
        status: 'CLOSED',
        grooming: expect.any(String),
      },
      {
        id: 'peak:t4',
        resortId: 'peak',
        name: 'Trail 4',
        difficulty: 'BEGINNER',
        rating: 'beginner',
        lengthM: 4000,
        source: 'generated',
        status: 'CLOSED',
        grooming: expect.any(String),
      },
      {
        id: 'peak:t5',
        resortId: 'peak',
        name: 'Trail 5',
        difficulty: 'ADVANCED',
        rating: 'advanced',
        lengthM: 5000,
        source: 'openskimap',
        status: 'CLOSED',
        grooming: expect.any(String),
      },
    ]);
    expect(s.trails.all().map((t) => t.grooming)).toEqual(GROOMING);
    expect(s.lifts.all()).toEqual([
      { id: 'peak:l1', resortId: 'peak', name: 'Lift 1', type: 'CHAIRLIFT', seats: 4, capacityPerHour: 2400, source: 'generated', status: 'OPEN' },
      { id: 'peak:l2', resortId: 'peak', name: 'Lift 2', type: 'GONDOLA', seats: 4, capacityPerHour: null, source: 'generated', status: 'OPEN' },
      { id: 'peak:l3', resortId: 'peak', name: 'Lift 3', type: 'CHAIRLIFT', seats: 4, capacityPerHour: 1800, source: 'generated', status: 'CLOSED' },
    ]);
    expect(s.memo.size).toBe(0);
  });

  it('live lifts, where a feed gives them, replace the inventory’s and are what the report counts', () => {
    const s = snapshot({
      live: [
        { ordinal: 1, name: 'Summit Gondola', status: 'OPEN', source: 'liftie' },
        { ordinal: 2, name: 'Blue Chair', status: 'HOLD', source: 'liftie' },
      ],
    });
    expect(s.lifts.all()).toEqual([
      { id: 'peak:live1', resortId: 'peak', name: 'Summit Gondola', type: 'GONDOLA', seats: null, capacityPerHour: null, source: 'liftie', status: 'OPEN' },
      { id: 'peak:live2', resortId: 'peak', name: 'Blue Chair', type: 'CHAIRLIFT', seats: null, capacityPerHour: null, source: 'liftie', status: 'HOLD' },
    ]);
    expect(s.report).toMatchObject({ openLifts: 1, totalLifts: 2 });
  });

  it('without today’s weather: source none, synced when the newest day was; never, without any day', () => {
    const withoutToday = snapshot({
      days: [
        day(-2, { syncedAt: '2027-01-13T05:00:00.000Z' }),
        day(-1, { syncedAt: '2027-01-14T05:00:00.000Z' }),
        day(-3, { syncedAt: '2027-01-12T05:00:00.000Z' }),
      ],
    });
    expect([withoutToday.source, withoutToday.syncedAt]).toEqual(['none', '2027-01-14T05:00:00.000Z']);
    // Today's row counts, even when an older row was fetched later.
    const today = snapshot({ days: [day(-1, { syncedAt: '2027-01-15T09:00:00.000Z' }), day(0, { syncedAt: '2027-01-15T01:00:00.000Z' })] });
    expect(today.syncedAt).toBe('2027-01-15T01:00:00.000Z');
    const empty = snapshot({ days: [] });
    expect([empty.source, empty.syncedAt]).toEqual(['none', NEVER_SYNCED]);
    expect(NEVER_SYNCED).toBe('1970-01-01T00:00:00.000Z');
  });

  it('the last snowfall before the stored days, where none of them had any, is the report’s', () => {
    const dry = DAYS.map((d) => ({ ...d, snowfallBaseCm: 0, snowfallMidCm: 0, snowfallSummitCm: 0 }));
    const earlier = { date: '2026-12-20', cm: 12 };
    const s = buildSnapshot({ resort: RESORT, days: dry, trails: TRAILS, lifts: LIFTS, live: [], asOf: AS_OF, earlierSnowfall: earlier });
    expect(s.report.lastSnowfall).toEqual(earlier);
    expect(snapshot({ days: dry }).report.lastSnowfall).toBeNull();
  });

  it('a view is computed once and kept with the snapshot', () => {
    const s = snapshot();
    let runs = 0;
    expect(memo(s, 'k', () => ++runs)).toBe(1);
    expect(memo(s, 'k', () => ++runs)).toBe(1);
    expect(memo(s, 'other', () => ++runs)).toBe(2);
  });

  it('the hour of an instant', () => {
    expect(hourOf(new Date('2027-01-15T10:59:59.999Z')).toISOString()).toBe('2027-01-15T10:00:00.000Z');
    expect(hourOf(new Date('2027-01-15T11:00:00.000Z')).toISOString()).toBe('2027-01-15T11:00:00.000Z');
  });
});

describe('the views of a snapshot', () => {
  it('today’s weather, or a calm, dry day when none is stored', () => {
    expect(todayOf(snapshot())).toBe(DAYS[8]);
    expect(todayOf(snapshot({ days: [day(-1)] }))).toEqual({
      date: TODAY,
      baseTempMin: 0,
      baseTempMax: 0,
      summitTempMin: 0,
      summitTempMax: 0,
      precipitationMm: 0,
      precipitationProbability: 0,
      snowfallBaseCm: 0,
      snowfallSummitCm: 0,
      snowDepthBaseCm: 0,
      snowDepthSummitCm: 0,
      seasonSnowfallCm: 0,
      windSpeedBaseKmh: 0,
      windGustBaseKmh: 0,
      windSpeedSummitKmh: 0,
      windGustSummitKmh: 0,
      windDirectionDeg: 0,
      snowLineM: 0,
      midTempMin: 0,
      midTempMax: 0,
      snowfallMidCm: 0,
      snowDepthMidCm: 0,
      windSpeedMidKmh: 0,
      windGustMidKmh: 0,
    });
  });

  it('conditions, metric and imperial, each kept', () => {
    const s = snapshot();
    const metric = conditionsView(s, 'METRIC');
    expect(conditionsView(s, 'METRIC')).toBe(metric);
    expect(metric).toMatchInlineSnapshot(`
      {
        "date": "2027-01-15",
        "id": "peak@2027-01-15T13:00:00+01:00/METRIC",
        "lastSnowfall": {
          "amount": 4.8,
          "date": "2027-01-15",
        },
        "newSnow24h": 4.8,
        "newSnow48h": 11.8,
        "newSnow72h": 12.6,
        "newSnow7d": 14.8,
        "openLifts": 2,
        "openTrails": 2,
        "openTrailsPct": 40,
        "seasonCloses": "2027-05-03",
        "seasonOpens": "2026-11-01",
        "seasonSnowfall": 400,
        "snowDepthBase": 80,
        "snowDepthMid": 140,
        "snowDepthSummit": 200,
        "snowfallNext48h": 8.4,
        "source": "observed",
        "status": "OPEN",
        "statusReason": "open for the season",
        "summary": "SNOW",
        "surface": "MACHINE_GROOMED",
        "temperature": -2.8,
        "temperatureSummit": -12.8,
        "totalLifts": 3,
        "totalTrails": 5,
        "units": {
          "depth": "cm",
          "elevation": "m",
          "length": "m",
          "precipitation": "mm",
          "speed": "km/h",
          "system": "METRIC",
          "temperature": "°C",
        },
        "updatedAt": "2027-01-15T13:00:00+01:00",
        "windGust": 70,
        "windSpeed": 40,
      }
    `);
    expect(conditionsView(s, 'IMPERIAL')).toMatchInlineSnapshot(`
      {
        "date": "2027-01-15",
        "id": "peak@2027-01-15T13:00:00+01:00/IMPERIAL",
        "lastSnowfall": {
          "amount": 1.9,
          "date": "2027-01-15",
        },
        "newSnow24h": 1.9,
        "newSnow48h": 4.6,
        "newSnow72h": 5,
        "newSnow7d": 5.8,
        "openLifts": 2,
        "openTrails": 2,
        "openTrailsPct": 40,
        "seasonCloses": "2027-05-03",
        "seasonOpens": "2026-11-01",
        "seasonSnowfall": 157.5,
        "snowDepthBase": 31.5,
        "snowDepthMid": 55.1,
        "snowDepthSummit": 78.7,
        "snowfallNext48h": 3.3,
        "source": "observed",
        "status": "OPEN",
        "statusReason": "open for the season",
        "summary": "SNOW",
        "surface": "MACHINE_GROOMED",
        "temperature": 27,
        "temperatureSummit": 9,
        "totalLifts": 3,
        "totalTrails": 5,
        "units": {
          "depth": "in",
          "elevation": "ft",
          "length": "ft",
          "precipitation": "in",
          "speed": "mph",
          "system": "IMPERIAL",
          "temperature": "°F",
        },
        "updatedAt": "2027-01-15T13:00:00+01:00",
        "windGust": 43.5,
        "windSpeed": 24.9,
      }
    `);
  });

  it('the weather now and the forecast from today, metric and imperial, each kept', () => {
    const s = snapshot();
    const metric = weatherView(s, 'METRIC');
    expect(weatherView(s, 'METRIC')).toBe(metric);
    expect(metric.forecast).toBe(forecastView(s, 'METRIC'));
    expect(metric.forecast.map((d) => d.date)).toEqual(Array.from({ length: 7 }, (_, i) => addDays(TODAY, i)));
    expect({ ...metric, forecast: metric.forecast.slice(0, 2) }).toMatchInlineSnapshot(`
      {
        "current": {
          "precipitation24h": 3,
          "snowfall24h": 1,
          "summary": "SNOW",
          "temperature": -2.8,
          "temperatureSummit": -12.8,
          "time": "2027-01-15T12:00:00.000Z",
          "windDirection": 180,
          "windGust": 20,
          "windSpeed": 10,
        },
        "forecast": [
          {
            "base": {
              "elevation": 1000,
              "snowfall": 1,
              "tempMax": -2,
              "tempMin": -10,
              "windGust": 20,
              "windSpeed": 10,
            },
            "date": "2027-01-15",
            "mid": {
              "elevation": 2001,
              "snowfall": 3,
              "tempMax": -7,
              "tempMin": -15,
              "windGust": 45,
              "windSpeed": 25,
            },
            "precipitation": 3,
            "precipitationProbability": 50,
            "snowLine": 900,
            "summary": "SNOW",
            "summit": {
              "elevation": 3001,
              "snowfall": 5,
              "tempMax": -12,
              "tempMin": -20,
              "windGust": 70,
              "windSpeed": 40,
            },
            "windDirection": 180,
          },
          {
            "base": {
              "elevation": 1000,
              "snowfall": 1.1,
              "tempMax": -1,
              "tempMin": -9,
              "windGust": 21,
              "windSpeed": 11,
            },
            "date": "2027-01-16",
            "mid": {
              "elevation": 2001,
              "snowfall": 4,
              "tempMax": -6,
              "tempMin": -14,
              "windGust": 46,
              "windSpeed": 26,
            },
            "precipitation": 3.1,
            "precipitationProbability": 51,
            "snowLine": 901,
            "summary": "SNOW",
            "summit": {
              "elevation": 3001,
              "snowfall": 6,
              "tempMax": -11,
              "tempMin": -19,
              "windGust": 71,
              "windSpeed": 41,
            },
            "windDirection": 181,
          },
        ],
        "id": "peak@2027-01-15T13:00:00+01:00/METRIC",
        "source": "observed",
        "units": {
          "depth": "cm",
          "elevation": "m",
          "length": "m",
          "precipitation": "mm",
          "speed": "km/h",
          "system": "METRIC",
          "temperature": "°C",
        },
      }
    `);
    const imperial = weatherView(s, 'IMPERIAL');
    expect({ ...imperial, forecast: imperial.forecast.slice(0, 1) }).toMatchInlineSnapshot(`
      {
        "current": {
          "precipitation24h": 0.12,
          "snowfall24h": 0.4,
          "summary": "SNOW",
          "temperature": 27,
          "temperatureSummit": 9,
          "time": "2027-01-15T12:00:00.000Z",
          "windDirection": 180,
          "windGust": 12.4,
          "windSpeed": 6.2,
        },
        "forecast": [
          {
            "base": {
              "elevation": 3281,
              "snowfall": 0.4,
              "tempMax": 28.4,
              "tempMin": 14,
              "windGust": 12.4,
              "windSpeed": 6.2,
            },
            "date": "2027-01-15",
            "mid": {
              "elevation": 6565,
              "snowfall": 1.2,
              "tempMax": 19.4,
              "tempMin": 5,
              "windGust": 28,
              "windSpeed": 15.5,
            },
            "precipitation": 0.12,
            "precipitationProbability": 50,
            "snowLine": 2953,
            "summary": "SNOW",
            "summit": {
              "elevation": 9846,
              "snowfall": 2,
              "tempMax": 10.4,
              "tempMin": -4,
              "windGust": 43.5,
              "windSpeed": 24.9,
            },
            "windDirection": 180,
          },
        ],
        "id": "peak@2027-01-15T13:00:00+01:00/IMPERIAL",
        "source": "observed",
        "units": {
          "depth": "in",
          "elevation": "ft",
          "length": "ft",
          "precipitation": "in",
          "speed": "mph",
          "system": "IMPERIAL",
          "temperature": "°F",
        },
      }
    `);
    expect(imperial.forecast).toHaveLength(7);
  });

  it('trail and lift summaries: totals, open, by difficulty, type and status', () => {
    const s = snapshot();
    const trails = trailSummaryView(s);
    expect(trailSummaryView(s)).toBe(trails);
    expect(trails).toEqual({
      total: 5,
      open: 2,
      groomed: 2,
      byDifficulty: [
        { difficulty: 'BEGINNER', total: 2, open: 1 },
        { difficulty: 'INTERMEDIATE', total: 1, open: 1 },
        { difficulty: 'ADVANCED', total: 1, open: 0 },
        { difficulty: 'EXPERT', total: 1, open: 0 },
      ],
      byStatus: [
        { status: 'OPEN', count: 2 },
        { status: 'CLOSED', count: 3 },
      ],
    });
    const lifts = liftSummaryView(s);
    expect(liftSummaryView(s)).toBe(lifts);
    expect(lifts).toEqual({
      total: 3,
      open: 2,
      openCapacityPerHour: 2400,
      byType: [
        { type: 'CHAIRLIFT', total: 2, open: 1 },
        { type: 'GONDOLA', total: 1, open: 1 },
      ],
      byStatus: [
        { status: 'OPEN', count: 2 },
        { status: 'HOLD', count: 0 },
        { status: 'SCHEDULED', count: 0 },
        { status: 'CLOSED', count: 1 },
      ],
    });
  });

  it('the storm outlook: summit snowfall over the next 48 hours, kept', () => {
    const s = snapshot();
    const storm = stormOutlookView(s);
    expect(stormOutlookView(s)).toBe(storm);
    expect(storm).toMatchInlineSnapshot(`
      {
        "peakDate": "2027-01-16",
        "peakSnowfallCm": 6,
        "snowfall48hCm": 8.4,
      }
    `);
  });
});
