/** Calendar dates as ISO strings (YYYY-MM-DD, UTC) and whole-day arithmetic on them. */
import { BoundedMemo } from './bounded-memo.js';

const DAY_MS = 86_400_000;

// The generator, history and rankings convert between day numbers and ISO dates millions of
// times over a few hundred distinct days; going through Date each time was most of their cost.
// Bounded: a caller with ever new dates (a fuzzer) cannot grow them without end.
const isoByDay = new BoundedMemo<number, string>(100_000);
const dayByIso = new BoundedMemo<string, number>(100_000);

export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Days since 1970-01-01. */
export function dayNumber(iso: string): number {
  let n = dayByIso.get(iso);
  if (n === undefined) {
    n = Math.floor(Date.parse(`${iso}T00:00:00Z`) / DAY_MS);
    if (!Number.isNaN(n)) {
      dayByIso.set(iso, n);
      isoByDay.set(n, iso);
    }
  }
  return n;
}

export function fromDayNumber(n: number): string {
  let iso = isoByDay.get(n);
  if (iso === undefined) {
    iso = new Date(n * DAY_MS).toISOString().slice(0, 10);
    isoByDay.set(n, iso);
    dayByIso.set(iso, n);
  }
  return iso;
}

export function addDays(iso: string, days: number): string {
  return fromDayNumber(dayNumber(iso) + days);
}

/** 1 for January 1st. */
export function dayOfYear(iso: string): number {
  return dayNumber(iso) - dayNumber(`${iso.slice(0, 4)}-01-01`) + 1;
}

/** Inclusive list of dates from `from` to `to`. */
export function dateRange(from: string, to: string): string[] {
  const out: string[] = [];
  for (let n = dayNumber(from); n <= dayNumber(to); n++) out.push(fromDayNumber(n));
  return out;
}
