import { describe, expect, it } from 'vitest';
import { averageSeries, deviation, deviations, samplePoints, summarize, windowDates, yearsBefore, type HistoryDay } from '../../src/domain/history.js';
import { haversineMiles } from '../../src/domain/geo.js';

const d = (date: string, n: number): HistoryDay => ({ date, snowfallCm: n, precipitationMm: 2 * n, snowDepthCm: 10 * n, tempMinC: -n, tempMaxC: n / 2 });

describe('history windows', () => {
  it('the window is `days` days ending today, oldest first', () => {
    expect(windowDates('2027-03-02', 3)).toEqual(['2027-02-28', '2027-03-01', '2027-03-02']);
    expect(windowDates('2028-03-01', 2)).toEqual(['2028-02-29', '2028-03-01']);
  });

  it('the same calendar date years earlier, 29 February falling back to the 28th only in common years', () => {
    expect(yearsBefore('2027-01-15', 1)).toEqual('2026-01-15');
    expect(yearsBefore('2028-02-29', 1)).toBe('2027-02-28');
    expect(yearsBefore('2028-02-29', 4)).toBe('2024-02-29');
    expect(yearsBefore('2004-02-29', 104)).toBe('1900-02-28');
    expect(yearsBefore('2404-02-29', 4)).toBe('2400-02-29');
    expect(yearsBefore('0999-06-01', 0)).toBe('0999-06-01');
  });

  it('samples the resort and `count` points on a circle of the radius, the first due north', () => {
    const pts = samplePoints(45, 7, 10, 6);
    expect(pts).toHaveLength(7);
    expect(pts[0]).toEqual({ lat: 45, lng: 7 });
    for (const p of pts.slice(1)) expect(haversineMiles(45, 7, p.lat, p.lng) * 1.609344).toBeCloseTo(10, 1);
    expect(pts[1]!.lng).toBeCloseTo(7, 9);
    expect(pts[1]!.lat).toBeGreaterThan(45);
    expect(pts[4]!.lat).toBeLessThan(45);
    expect(samplePoints(45, 7, 10)).toHaveLength(7);
    expect(samplePoints(45, 7, 10, 3)).toHaveLength(4);
  });
});

describe('history arithmetic', () => {
  it('averages aligned series day by day, to one decimal', () => {
    const dates = ['2027-01-01', '2027-01-02'];
    const avg = averageSeries(
      [
        [d('x', 1), d('x', 2)],
        [d('y', 2), d('y', 4)],
      ],
      dates,
    );
    expect(avg).toEqual([
      { date: '2027-01-01', snowfallCm: 1.5, precipitationMm: 3, snowDepthCm: 15, tempMinC: -1.5, tempMaxC: 0.8 },
      { date: '2027-01-02', snowfallCm: 3, precipitationMm: 6, snowDepthCm: 30, tempMinC: -3, tempMaxC: 1.5 },
    ]);
    expect(averageSeries([], ['2027-01-01'])[0]).toEqual({ date: '2027-01-01', snowfallCm: 0, precipitationMm: 0, snowDepthCm: 0, tempMinC: 0, tempMaxC: 0 });
  });

  it('sums amounts and averages states', () => {
    expect(summarize([d('a', 1), d('b', 2), d('c', 4)])).toEqual({ snowfall: 7, precipitation: 14, snowDepth: 23.3, tempMin: -2.3, tempMax: 1.2 });
    expect(summarize([])).toEqual({ snowfall: 0, precipitation: 0, snowDepth: 0, tempMin: 0, tempMax: 0 });
  });

  it('a deviation is the difference, and a percentage of the baseline magnitude unless it is near zero', () => {
    expect(deviation(15, 10)).toEqual({ absolute: 5, percent: 50 });
    expect(deviation(-15, -10)).toEqual({ absolute: -5, percent: -50 });
    expect(deviation(1, 0.04)).toEqual({ absolute: 1, percent: null });
    expect(deviation(1, 0.05)).toEqual({ absolute: 1, percent: 1900 });
    expect(deviation(0.3, -0.05)).toEqual({ absolute: 0.4, percent: 700 });
  });

  it('deviations cover every measure; temperatures in degrees only', () => {
    const s = { snowfall: 20, precipitation: 10, snowDepth: 100, tempMin: -5, tempMax: 2 };
    const b = { snowfall: 10, precipitation: 10, snowDepth: 50, tempMin: -10, tempMax: 0 };
    expect(deviations(s, b)).toEqual({
      snowfall: { absolute: 10, percent: 100 },
      precipitation: { absolute: 0, percent: 0 },
      snowDepth: { absolute: 50, percent: 100 },
      tempMin: { absolute: 5 },
      tempMax: { absolute: 2 },
    });
  });
});
