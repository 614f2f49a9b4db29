import type { SnowReport } from './conditions.js';
import type { DailyWeather } from './weather/daily.js';
import { addDays } from './dates.js';

/** Rankings over every resort's snow report: pure, ordered, ties broken by name then id. */

export interface Ranked<R> {
  resort: R;
  report: SnowReport;
}

interface Named {
  id: string;
  name: string;
}

const byName = (a: Named, b: Named) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Resorts with snow in the last 72 h, by 24 h snowfall, then 72 h. */
export function topSnow<E extends Ranked<Named>>(entries: readonly E[], limit: number): E[] {
  return entries
    .filter((e) => e.report.newSnow72hCm > 0)
    .sort((a, b) => b.report.newSnow24hCm - a.report.newSnow24hCm || b.report.newSnow72hCm - a.report.newSnow72hCm || byName(a.resort, b.resort))
    .slice(0, limit);
}

export function openTrailsPct(report: SnowReport): number {
  return report.totalTrails === 0 ? 0 : Math.round((1000 * report.openTrails) / report.totalTrails) / 10;
}

/** Operating resorts whose share of open trails meets the minimum, most open first. */
export function openNow<E extends Ranked<Named>>(entries: readonly E[], minOpenTrailsPct: number): E[] {
  return entries
    .filter((e) => e.report.status === 'OPEN' && openTrailsPct(e.report) >= minOpenTrailsPct)
    .sort((a, b) => openTrailsPct(b.report) - openTrailsPct(a.report) || byName(a.resort, b.resort));
}

/** Forecast summit snowfall (cm) over the next 48 h that counts as a storm. */
export const STORM_WATCH_MIN_CM = 20;

export interface StormOutlook {
  snowfall48hCm: number;
  peakDate: string;
  peakSnowfallCm: number;
}

/** Snowfall forecast for today and tomorrow (the next 48 h of daily forecasts). */
export function stormOutlook(days: readonly DailyWeather[], today: string): StormOutlook {
  const next = days.filter((d) => d.date >= today && d.date <= addDays(today, 1));
  const peak = next.reduce<DailyWeather | null>((best, d) => (!best || d.snowfallSummitCm > best.snowfallSummitCm ? d : best), null);
  return {
    snowfall48hCm: Math.round(next.reduce((s, d) => s + d.snowfallSummitCm, 0) * 10) / 10,
    peakDate: peak?.date ?? today,
    peakSnowfallCm: peak?.snowfallSummitCm ?? 0,
  };
}

export function stormWatch<E extends { resort: Named; outlook: StormOutlook }>(entries: readonly E[], limit: number): E[] {
  return entries
    .filter((e) => e.outlook.snowfall48hCm >= STORM_WATCH_MIN_CM)
    .sort((a, b) => b.outlook.snowfall48hCm - a.outlook.snowfall48hCm || byName(a.resort, b.resort))
    .slice(0, limit);
}

export interface ResortSnowTotal {
  resortId: string;
  totalCm: number;
  days: number;
  maxDayCm: number;
  maxDayDate: string | null;
}

export interface NetworkSnow {
  resorts: number;
  resortsWithSnow: number;
  averageTotalCm: number;
  averagePerDayCm: number;
  maxTotalCm: number;
}

/** Network-wide averages over per-resort totals for a window of `days`. */
export function networkSnow(totals: readonly ResortSnowTotal[], days: number): NetworkSnow {
  const n = totals.length;
  const sum = totals.reduce((s, t) => s + t.totalCm, 0);
  return {
    resorts: n,
    resortsWithSnow: totals.filter((t) => t.totalCm > 0).length,
    averageTotalCm: n ? Math.round((10 * sum) / n) / 10 : 0,
    averagePerDayCm: n ? Math.round((100 * sum) / n / days) / 100 : 0,
    maxTotalCm: totals.reduce((m, t) => Math.max(m, t.totalCm), 0),
  };
}
