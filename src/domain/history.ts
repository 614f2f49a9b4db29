import { addDays } from './dates.js';
import { destinationPoint } from './geo.js';

/**
 * The historical baseline: pure arithmetic over daily series. For a window of `days` ending today,
 * the baseline is the same calendar window in each of the previous `years` years, averaged over
 * the sample points and the years; deviations compare the window with it.
 */

export interface HistoryDay {
  date: string;
  snowfallCm: number;
  precipitationMm: number;
  snowDepthCm: number;
  tempMinC: number;
  tempMaxC: number;
}

export type Measure = 'snowfall' | 'precipitation' | 'snowDepth' | 'tempMin' | 'tempMax';
export type Summary = Record<Measure, number>;

export interface Deviation {
  absolute: number;
  /** Relative to the baseline's magnitude; null when the baseline is (near) zero. */
  percent: number | null;
}

/** Temperatures differ by degrees only: a percentage of a °C or °F value means nothing. */
export interface TemperatureDeviation {
  absolute: number;
}

export type Deviations = Record<'snowfall' | 'precipitation' | 'snowDepth', Deviation> & Record<'tempMin' | 'tempMax', TemperatureDeviation>;

/** The resort and `count` points on a circle of `radiusKm` around it (bearing 0, 360/count, …). */
export function samplePoints(lat: number, lng: number, radiusKm: number, count = 6): { lat: number; lng: number }[] {
  return [{ lat, lng }, ...Array.from({ length: count }, (_, i) => destinationPoint(lat, lng, (360 / count) * i, radiusKm))];
}

/** The window's dates, oldest first: `days` days ending `today`. */
export function windowDates(today: string, days: number): string[] {
  return Array.from({ length: days }, (_, i) => addDays(today, i - days + 1));
}

/** The same calendar date `years` earlier (29 February falls back to the 28th). */
export function yearsBefore(date: string, years: number): string {
  const y = Number(date.slice(0, 4)) - years;
  const md = date.slice(5);
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return `${String(y).padStart(4, '0')}-${md === '02-29' && !leap ? '02-28' : md}`;
}

const MEASURES: readonly Measure[] = ['snowfall', 'precipitation', 'snowDepth', 'tempMin', 'tempMax'];
const field: Record<Measure, keyof Omit<HistoryDay, 'date'>> = {
  snowfall: 'snowfallCm',
  precipitation: 'precipitationMm',
  snowDepth: 'snowDepthCm',
  tempMin: 'tempMinC',
  tempMax: 'tempMaxC',
};

const round1 = (x: number) => Math.round(x * 10) / 10;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Averages several aligned series (points, or years) day by day. Series must have equal length. */
export function averageSeries(series: readonly HistoryDay[][], dates: readonly string[]): HistoryDay[] {
  return dates.map((date, i) => {
    const day: HistoryDay = { date, snowfallCm: 0, precipitationMm: 0, snowDepthCm: 0, tempMinC: 0, tempMaxC: 0 };
    for (const m of MEASURES) day[field[m]] = round1(mean(series.map((s) => s[i]![field[m]])));
    return day;
  });
}

/** Totals for amounts (snowfall, precipitation), means for states (depth, temperatures). */
export function summarize(days: readonly HistoryDay[]): Summary {
  const sum = (m: Measure) => round1(days.reduce((a, d) => a + d[field[m]], 0));
  const avg = (m: Measure) => round1(mean(days.map((d) => d[field[m]])));
  return { snowfall: sum('snowfall'), precipitation: sum('precipitation'), snowDepth: avg('snowDepth'), tempMin: avg('tempMin'), tempMax: avg('tempMax') };
}

export function deviation(current: number, baseline: number): Deviation {
  const absolute = round1(current - baseline);
  return { absolute, percent: Math.abs(baseline) < 0.05 ? null : round1((100 * (current - baseline)) / Math.abs(baseline)) };
}

export function deviations(current: Summary, baseline: Summary): Deviations {
  const degrees = (m: 'tempMin' | 'tempMax') => ({ absolute: round1(current[m] - baseline[m]) });
  return {
    snowfall: deviation(current.snowfall, baseline.snowfall),
    precipitation: deviation(current.precipitation, baseline.precipitation),
    snowDepth: deviation(current.snowDepth, baseline.snowDepth),
    tempMin: degrees('tempMin'),
    tempMax: degrees('tempMax'),
  };
}
