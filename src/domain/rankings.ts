import type { SnowReport } from './conditions.js';
import type { DailyWeather } from './weather/daily.js';
import { addDays } from './dates.js';
import { compareNames } from './fold.js';
import { HOURS, hoursOf } from './weather/hourly.js';

/** Rankings over every resort's snow report: pure, ordered, ties broken by name then id. */

export interface Ranked<R> {
  resort: R;
  report: SnowReport;
}

interface Named {
  id: string;
  name: string;
}

const byName = (a: Named, b: Named) => compareNames(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

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

/** Forecast hours the storm watch looks ahead. */
export const STORM_WATCH_HOURS = 48;

/**
 * Summit snowfall forecast over the 48 hours from local `date` `hour` (that hour included), and
 * the local day with most of it (the first of equal days).
 */
export function stormOutlook(resortId: string, days: readonly DailyWeather[], date: string, hour: number): StormOutlook {
  const byDate = new Map(days.map((d) => [d.date, d]));
  const perDay: [string, number][] = [];
  let d = date;
  let h = hour;
  for (let i = 0; i < STORM_WATCH_HOURS; ) {
    // One local day at a time: its hours are worked out once.
    const day = byDate.get(d);
    const hours = day ? hoursOf(resortId, day) : null;
    const entry: [string, number] = [d, 0];
    perDay.push(entry);
    for (; i < STORM_WATCH_HOURS && h < HOURS; i++, h++) if (hours) entry[1] += hours[h]!;
    h = 0;
    d = addDays(d, 1);
  }
  const r1 = (x: number) => Math.round(x * 10) / 10;
  const peak = perDay.reduce((best, x) => (x[1] > best[1] + 1e-9 ? x : best), perDay[0]!);
  return {
    snowfall48hCm: r1(perDay.reduce((s, x) => s + x[1], 0)),
    peakDate: peak[1] > 0 ? peak[0] : date,
    peakSnowfallCm: r1(peak[1]),
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
