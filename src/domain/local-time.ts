/**
 * Wall-clock time in an IANA time zone, from an instant: the local date and hour a resort lives
 * in, and ISO 8601 timestamps with the zone's offset. Pure (Intl carries the zone rules); one
 * formatter per zone, and answers kept per zone and hour, since every resort asks once an hour.
 */

export interface LocalHour {
  /** Local calendar date, YYYY-MM-DD. */
  date: string;
  /** Local hour, 0–23. */
  hour: number;
  /** The instant as local wall-clock time with its offset: 2027-01-15T05:00:00-07:00. */
  iso: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const memo = new Map<string, LocalHour>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
      hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'longOffset',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether the runtime knows this zone. */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The local date, hour and ISO timestamp of `instant` in `timeZone`. */
export function localHour(instant: Date, timeZone: string): LocalHour {
  const key = `${timeZone}|${instant.getTime()}`;
  let hit = memo.get(key);
  if (hit) return hit;
  const parts: Record<string, string> = {};
  for (const p of formatterFor(timeZone).formatToParts(instant)) parts[p.type] = p.value;
  // "GMT" for a zero offset, else "GMT+05:30".
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : parts.timeZoneName!.slice(3);
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  hit = { date, hour: Number(parts.hour), iso: `${date}T${parts.hour}:${parts.minute}:${parts.second}${offset}` };
  if (memo.size > 50_000) memo.clear();
  memo.set(key, hit);
  return hit;
}

/** The local calendar date of `instant` in `timeZone`. */
export function localDate(instant: Date, timeZone: string): string {
  return localHour(instant, timeZone).date;
}
