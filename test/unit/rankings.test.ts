import { describe, expect, it } from 'vitest';
import type { SnowReport } from '../../src/domain/conditions.js';
import { networkSnow, openNow, openTrailsPct, STORM_WATCH_MIN_CM, stormOutlook, stormWatch, topSnow } from '../../src/domain/rankings.js';
import type { DailyWeather } from '../../src/domain/weather/daily.js';

const report = (over: Partial<SnowReport>): SnowReport => ({
  date: '2027-01-15',
  status: 'OPEN',
  statusReason: '',
  season: { opens: '2026-11-22', closes: '2027-04-12' },
  snowDepthBaseCm: 100,
  snowDepthMidCm: 125,
  snowDepthSummitCm: 150,
  newSnow24hCm: 0,
  newSnow48hCm: 0,
  newSnow72hCm: 0,
  newSnow7dCm: 0,
  seasonSnowfallCm: 0,
  lastSnowfall: null,
  surface: 'POWDER',
  skiableShare: 1,
  openTrails: 10,
  totalTrails: 10,
  openLifts: 5,
  totalLifts: 5,
  hour: 0,
  ...over,
});
const entry = (id: string, name: string, over: Partial<SnowReport>) => ({ resort: { id, name }, report: report(over) });
const ids = (xs: { resort: { id: string } }[]) => xs.map((x) => x.resort.id);

describe('top snow', () => {
  const entries = [
    entry('a', 'Alpha', { newSnow24hCm: 0, newSnow72hCm: 0 }),
    entry('b', 'Bravo', { newSnow24hCm: 5, newSnow72hCm: 6 }),
    entry('c', 'Charlie', { newSnow24hCm: 5, newSnow72hCm: 9 }),
    entry('d', 'Delta', { newSnow24hCm: 0, newSnow72hCm: 0.1 }),
    entry('e2', 'Echo', { newSnow24hCm: 12, newSnow72hCm: 12 }),
    entry('e1', 'Echo', { newSnow24hCm: 12, newSnow72hCm: 12 }),
    entry('f', 'Aardvark', { newSnow24hCm: 12, newSnow72hCm: 12 }),
  ];

  it('keeps exactly the resorts with snow in the last 72 h, by 24 h, then 72 h, then name, then id', () => {
    expect(ids(topSnow(entries, 50))).toEqual(['f', 'e1', 'e2', 'c', 'b', 'd']);
    // Whatever order the entries come in: ties of name go by id.
    const tied = ['e4', 'e2', 'e3', 'e1'].map((id) => entry(id, 'Echo', { newSnow24hCm: 12, newSnow72hCm: 12 }));
    const orders = (xs: typeof tied): (typeof tied)[] =>
      xs.length <= 1 ? [xs] : xs.flatMap((x, i) => orders([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
    for (const order of orders(tied)) expect(ids(topSnow(order, 50))).toEqual(['e1', 'e2', 'e3', 'e4']);
  });

  it('cuts at the limit after ordering', () => {
    expect(ids(topSnow(entries, 2))).toEqual(['f', 'e1']);
    expect(topSnow(entries, 0)).toEqual([]);
  });
});

describe('open now', () => {
  it('open resorts at or above the minimum share, most open first, then by name', () => {
    const entries = [
      entry('a', 'Alpha', { openTrails: 5, totalTrails: 10 }),
      entry('b', 'Bravo', { openTrails: 49, totalTrails: 100 }),
      entry('c', 'Charlie', { openTrails: 10, totalTrails: 10, status: 'CLOSED' }),
      entry('d', 'Delta', { openTrails: 9, totalTrails: 10 }),
      entry('e', 'Echo', { openTrails: 1, totalTrails: 2 }),
    ];
    expect(ids(openNow(entries, 50))).toEqual(['d', 'a', 'e']);
    expect(ids(openNow(entries, 0))).toEqual(['d', 'a', 'e', 'b']);
    expect(ids(openNow(entries, 90))).toEqual(['d']);
    expect(ids(openNow(entries, 90.1))).toEqual([]);
  });

  it('the share is a percentage with one decimal, 0 without trails', () => {
    expect(openTrailsPct(report({ openTrails: 1, totalTrails: 3 }))).toBe(33.3);
    expect(openTrailsPct(report({ openTrails: 2, totalTrails: 3 }))).toBe(66.7);
    expect(openTrailsPct(report({ openTrails: 0, totalTrails: 0 }))).toBe(0);
  });
});

describe('storm watch', () => {
  // One centimetre in each hour named, none in the others.
  const day = (date: string, snowyHours: number[]) =>
    ({
      date,
      snowfallSummitCm: snowyHours.length,
      snowfallSummitHourly: Array.from({ length: 24 }, (_, h) => (snowyHours.includes(h) ? 1 : 0)).join(','),
    }) as DailyWeather;
  const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

  it('sums the 48 hours from the current hour on, and names the local day with most of it', () => {
    const days = [day('2027-01-14', range(0, 24)), day('2027-01-15', range(0, 24)), day('2027-01-16', range(0, 24)), day('2027-01-17', range(0, 24))];
    // From 15 January 06:00: 18 hours of the 15th, 24 of the 16th, 6 of the 17th.
    expect(stormOutlook('r', days, '2027-01-15', 6)).toEqual({ snowfall48hCm: 48, peakDate: '2027-01-16', peakSnowfallCm: 24 });
    expect(stormOutlook('r', days, '2027-01-15', 0)).toEqual({ snowfall48hCm: 48, peakDate: '2027-01-15', peakSnowfallCm: 24 });
    const late = [day('2027-01-15', [22, 23]), day('2027-01-16', [0, 1, 2]), day('2027-01-17', [5, 6, 7, 8])];
    // From 22:00: two hours of the 15th, three of the 16th, and the 17th up to 21:00 (four hours).
    expect(stormOutlook('r', late, '2027-01-15', 22)).toEqual({ snowfall48hCm: 9, peakDate: '2027-01-17', peakSnowfallCm: 4 });
    expect(stormOutlook('r', [day('2027-01-15', [1]), day('2027-01-16', [1])], '2027-01-15', 0)).toEqual({
      snowfall48hCm: 2,
      peakDate: '2027-01-15',
      peakSnowfallCm: 1,
    });
    expect(stormOutlook('r', [], '2027-01-15', 9)).toEqual({ snowfall48hCm: 0, peakDate: '2027-01-15', peakSnowfallCm: 0 });
  });

  it(`lists exactly the resorts at or above ${STORM_WATCH_MIN_CM} cm, most first, then by name`, () => {
    const outlook = (snowfall48hCm: number) => ({ snowfall48hCm, peakDate: '2027-01-15', peakSnowfallCm: snowfall48hCm });
    const entries = [
      { resort: { id: 'a', name: 'Alpha' }, outlook: outlook(19.9) },
      { resort: { id: 'b', name: 'Bravo' }, outlook: outlook(20) },
      { resort: { id: 'c', name: 'Charlie' }, outlook: outlook(35) },
      { resort: { id: 'd', name: 'Able' }, outlook: outlook(20) },
    ];
    expect(ids(stormWatch(entries, 10))).toEqual(['c', 'd', 'b']);
    expect(ids(stormWatch(entries, 1))).toEqual(['c']);
  });
});

describe('network snow', () => {
  it('averages totals over every resort and per day', () => {
    const t = (resortId: string, totalCm: number) => ({ resortId, totalCm, days: 7, maxDayCm: totalCm, maxDayDate: null });
    expect(networkSnow([t('a', 10), t('b', 0), t('c', 25)], 7)).toEqual({
      resorts: 3,
      resortsWithSnow: 2,
      averageTotalCm: 11.7,
      averagePerDayCm: 1.67,
      maxTotalCm: 25,
    });
    expect(networkSnow([], 7)).toEqual({ resorts: 0, resortsWithSnow: 0, averageTotalCm: 0, averagePerDayCm: 0, maxTotalCm: 0 });
  });
});
