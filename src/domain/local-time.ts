import { BoundedMemo } from './bounded-memo.js';
import { offsetIn, type ZoneOffsets } from './zone-offsets.js';

/**
 * Wall-clock time in an IANA time zone, from an instant: the local date and hour a resort lives
 * in, and ISO 8601 timestamps with the zone's offset. Pure. The offset comes from the zone's
 * offsets as the database keeps them (domain/zone-offsets.ts) when the caller has them, else from
 * Intl, whose first time-zone formatter costs the process ICU's data (BENCHMARKS.md, design figures: ICU); answers are kept per
 * zone and hour, since every resort asks once an hour.
 */

export interface LocalHour {
  /** Local calendar date, YYYY-MM-DD. */
  date: string;
  /** Local hour, 0–23. */
  hour: number;
  /** The instant as local wall-clock time with its offset: 2027-01-15T05:00:00-07:00. */
  iso: string;
}

const MINUTE = 60_000;
const formatters = new Map<string, Intl.DateTimeFormat>();
const memo = new BoundedMemo<string, LocalHour>(50_000);

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The zone's offset (minutes east of UTC) at an instant, as Intl (ICU) knows it. Throws for an unknown zone. */
export function intlOffsetMinutes(timeZone: string, ms: number): number {
  // format(), not formatToParts(): a third of the time, and a build asks this for every week of a
  // century in every resort's zone. en-US ends it with the offset: "1/15/2027, GMT-07:00", "…, GMT"
  // for a zero offset (seconds, before 1900 only, are dropped).
  const m = OFFSET_AT_END.exec(formatterFor(timeZone).format(ms));
  if (!m?.[1]) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}
const OFFSET_AT_END = /GMT(?:([+-])(\d\d):(\d\d))?(?::\d\d)?$/;

/** Whether the runtime knows this zone. */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));

function offsetText(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** The local date, hour and ISO timestamp of `instant` in `timeZone`; `offsets` are the zone's, when known. */
export function localHour(instant: Date, timeZone: string, offsets?: ZoneOffsets): LocalHour {
  const ms = instant.getTime();
  const key = `${timeZone}|${ms}`;
  let hit = memo.get(key);
  if (hit) return hit;
  const minutes = (offsets && offsetIn(offsets, ms)) ?? intlOffsetMinutes(timeZone, ms);
  const local = new Date(ms + minutes * MINUTE);
  const date = `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const hour = local.getUTCHours();
  hit = { date, hour, iso: `${date}T${pad(hour)}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${offsetText(minutes)}` };
  memo.set(key, hit);
  return hit;
}

/** The local calendar date of `instant` in `timeZone`. */
export function localDate(instant: Date, timeZone: string, offsets?: ZoneOffsets): string {
  return localHour(instant, timeZone, offsets).date;
}
