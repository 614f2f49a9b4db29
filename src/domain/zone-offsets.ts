/**
 * A time zone's offsets from UTC over a span of years, as the instants they change at. The server
 * reads local time from these instead of ICU: a process's first Intl time-zone formatter loads
 * ICU's data, several MiB (BENCHMARKS.md, design figures: ICU), and the offsets of the few zones resorts live in are a few hundred rows,
 * computed with Intl when the database is built (db/zone-offsets.ts). Pure.
 */
export interface ZoneOffsets {
  /** Instants (ms), ascending: offset i applies from starts[i] up to starts[i + 1], the last up to `end`. */
  readonly starts: readonly number[];
  /** Minutes east of UTC. */
  readonly minutes: readonly number[];
  /** Where the span ends (ms, exclusive); outside it the offsets are not known here. */
  readonly end: number;
}

/** The span the database keeps: from before the oldest weather history to well past any forecast. */
export const OFFSET_SPAN = { start: Date.UTC(1970, 0, 1), end: Date.UTC(2070, 0, 1) } as const;

const MINUTE = 60_000;
/** Zones change offset at most twice a year (Morocco's Ramadan pauses last weeks): a week misses none. */
const STEP = 7 * 24 * 60 * MINUTE;

/**
 * The changes of `offsetAt` (minutes east of UTC at an instant) between `start` and `end`, found by
 * sampling every week and bisecting each change to the minute. Both ends are whole minutes.
 */
export function scanOffsets(offsetAt: (ms: number) => number, start: number, end: number): ZoneOffsets {
  const starts = [start];
  const minutes = [offsetAt(start)];
  const last = end - MINUTE;
  let at = start;
  while (at < last) {
    const next = Math.min(at + STEP, last);
    const current = minutes[minutes.length - 1]!;
    if (offsetAt(next) === current) {
      at = next;
      continue;
    }
    // The offset is `current` at `low` and another at `high`: bisect to the first minute of the change.
    let low = at;
    let high = next;
    while (high - low > MINUTE) {
      const middle = low + Math.floor((high - low) / 2 / MINUTE) * MINUTE;
      if (offsetAt(middle) === current) low = middle;
      else high = middle;
    }
    starts.push(high);
    minutes.push(offsetAt(high));
    at = high;
  }
  return { starts, minutes, end };
}

/** The offset (minutes east of UTC) at `ms`, or undefined outside the span. */
export function offsetIn(zone: ZoneOffsets, ms: number): number | undefined {
  const { starts } = zone;
  if (!(ms >= starts[0]! && ms < zone.end)) return undefined;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= ms) low = middle;
    else high = middle - 1;
  }
  return zone.minutes[low];
}
