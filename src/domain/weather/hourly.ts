import { addDays } from '../dates.js';
import { createRng } from '../random.js';
import type { DailyWeather } from './daily.js';

/**
 * Summit snowfall by local hour. Providers that report hours (Open-Meteo) store them with the day;
 * for the offline generator, a day's total falls in one spell of 4 to 20 hours placed by the
 * resort's and date's seed, in tenths of a centimetre that add up to the daily total exactly. The
 * windows the API reports (new snow over the last 24 h, 72 h and 7 days; storm watch over the next
 * 48 h) sum these hours; a local day is its 24 clock hours (on the two daylight-saving change days
 * a year, the repeated or skipped hour is counted by the clock).
 */

export const HOURS = 24;
const zeros: readonly number[] = Object.freeze(new Array<number>(HOURS).fill(0));

/** Stored hours ("0,0,1.2,…"), or null when they are not 24 finite numbers. */
export function parseHours(text: string | null | undefined): number[] | null {
  if (!text) return null;
  const values = text.split(',').map(Number);
  return values.length === HOURS && values.every((v) => Number.isFinite(v) && v >= 0) ? values : null;
}

export function formatHours(values: readonly number[]): string {
  return values.map((v) => Math.round(v * 10) / 10).join(',');
}

/** The generator's hours for a day's summit total (cm): one spell, tenths adding up exactly. */
export function splitDailySnowfall(resortId: string, date: string, totalCm: number): readonly number[] {
  const tenths = Math.round(totalCm * 10);
  if (tenths <= 0) return zeros;
  const rng = createRng(`hours:${resortId}:${date}`);
  const length = rng.int(4, 20);
  const start = rng.int(0, HOURS - length);
  const weights = Array.from({ length }, () => 0.5 + rng.next());
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (w / sum) * tenths);
  const whole = exact.map(Math.floor);
  // Largest remainders take the tenths left over, so the hours add up to the total.
  let left = tenths - whole.reduce((a, b) => a + b, 0);
  // Array sort is stable: equal remainders keep the hours' order.
  const order = exact.map((x, i) => [x - whole[i]!, i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (left-- <= 0) break;
    whole[i]!++;
  }
  const hours = new Array<number>(HOURS).fill(0);
  for (const [i, t] of whole.entries()) hours[start + i] = t / 10;
  return hours;
}

/**
 * Each day's hours, worked out once per day object: a resort's snapshot reads the same days for
 * four windows, and at import scale (thousands of resorts) working them out per hour read was
 * most of a ranking's time. Kept with the inputs it came from, so a changed day is worked out again.
 */
const hoursMemo = new WeakMap<DailyWeather, { resortId: string; text: string | null | undefined; totalCm: number; date: string; hours: readonly number[] }>();

/** A day's 24 summit hours: as the provider reported them, or the generator's split of its total. */
export function hoursOf(resortId: string, day: DailyWeather): readonly number[] {
  const m = hoursMemo.get(day);
  if (m && m.resortId === resortId && m.text === day.snowfallSummitHourly && m.totalCm === day.snowfallSummitCm && m.date === day.date) return m.hours;
  const hours = parseHours(day.snowfallSummitHourly) ?? splitDailySnowfall(resortId, day.date, day.snowfallSummitCm);
  hoursMemo.set(day, { resortId, text: day.snowfallSummitHourly, totalCm: day.snowfallSummitCm, date: day.date, hours });
  return hours;
}

/**
 * Summit snowfall (cm, one decimal) over `count` hours starting at local `date` and `hour`;
 * hours of days without data count as none.
 */
export function snowfallOverHours(resortId: string, days: readonly DailyWeather[], date: string, hour: number, count: number): number {
  const byDate = new Map(days.map((d) => [d.date, d]));
  const hoursOn = (d: string) => {
    const day = byDate.get(d);
    return day ? hoursOf(resortId, day) : null;
  };
  let total = 0;
  let d = date;
  let h = hour;
  let hours = hoursOn(d);
  for (let i = 0; i < count; i++) {
    if (hours) total += hours[h]!;
    if (++h === HOURS && i + 1 < count) {
      h = 0;
      d = addDays(d, 1);
      hours = hoursOn(d);
    }
  }
  return Math.round(total * 10) / 10;
}

/** Snowfall in the `hours` hours before local `date` `hour` (that hour itself not included). */
export function snowfallBefore(resortId: string, days: readonly DailyWeather[], date: string, hour: number, hours: number): number {
  const back = hour - hours;
  const daysBack = Math.ceil(-back / HOURS);
  return snowfallOverHours(resortId, days, addDays(date, -daysBack), back + daysBack * HOURS, hours);
}
