import { addDays } from './dates.js';
import { inSeason, plannedSeason, type PlannedSeason } from './season.js';
import type { LiftFacts, ResortFacts, TrailFacts } from './resort.js';
import type { DailyWeather } from './weather/daily.js';
import { hoursOf, snowfallBefore } from './weather/hourly.js';
import { seasonAnchorMonthDay } from './weather/climate.js';

/**
 * The snow report: pure functions from a resort, its inventory and its recent daily weather to
 * what a skier asks — is it open, how much snow, what surface, which trails and lifts run.
 */

export const OPERATING_STATUSES = ['OPEN', 'CLOSED'] as const;
export type OperatingStatus = (typeof OPERATING_STATUSES)[number];
export const TRAIL_STATUSES = ['OPEN', 'CLOSED'] as const;
export type TrailStatus = (typeof TRAIL_STATUSES)[number];
export const GROOMING_STATUSES = ['GROOMED', 'UNGROOMED'] as const;
export type GroomingStatus = (typeof GROOMING_STATUSES)[number];
export const LIFT_STATUSES = ['OPEN', 'HOLD', 'SCHEDULED', 'CLOSED'] as const;
export type LiftStatus = (typeof LIFT_STATUSES)[number];
export const SNOW_SURFACES = [
  'POWDER',
  'PACKED_POWDER',
  'MACHINE_GROOMED',
  'HARD_PACKED',
  'SPRING_SNOW',
  'CORN',
  'GRANULAR',
  'ICY',
  'WET_SNOW',
  'WIND_BLOWN',
  'THIN_COVER',
  'NO_SNOW',
] as const;
export type SnowSurface = (typeof SNOW_SURFACES)[number];

/** Base depth (cm) a resort needs to open at all. */
export const MIN_OPERATING_BASE_CM = 20;
/** Base depth (cm) at which all terrain is skiable. */
export const FULL_COVER_BASE_CM = 80;
/**
 * Summit gusts (km/h) that put upper-mountain lifts on wind hold; cable cars and funiculars
 * tolerate more, and from the storm level every aerial lift stops. Surface lifts keep running.
 */
export const WIND_HOLD_GUST_KMH = 75;
export const WIND_HOLD_GUST_CABLE_CAR_KMH = 95;
export const WIND_HOLD_ALL_GUST_KMH = 110;
/** Lifts that open only once this share of terrain is skiable are the exposed, upper ones. */
const UPPER_MOUNTAIN_THRESHOLD = 0.25;

/** The moment a report describes: a resort's local date and hour (the hour just begun). */
export interface ReportTime {
  date: string;
  hour: number;
}

export interface SnowReport {
  date: string;
  status: OperatingStatus;
  statusReason: string;
  season: PlannedSeason;
  snowDepthBaseCm: number;
  /** At mid-mountain, kept between the base's and the summit's (a model's mid cell can fall outside). */
  snowDepthMidCm: number;
  snowDepthSummitCm: number;
  newSnow24hCm: number;
  newSnow48hCm: number;
  newSnow72hCm: number;
  newSnow7dCm: number;
  seasonSnowfallCm: number;
  /** The last day this season with measurable summit snowfall, and how much; null when none. */
  lastSnowfall: Snowfall | null;
  surface: SnowSurface;
  /** Local hour the new-snow windows end at (they cover whole hours before it). */
  hour: number;
  /** Share of terrain skiable given the snow, 0–1 (0 when closed). */
  skiableShare: number;
  openTrails: number;
  totalTrails: number;
  openLifts: number;
  totalLifts: number;
}

/** A day's summit snowfall. */
export interface Snowfall {
  date: string;
  cm: number;
}

/** Snowfall that counts as a snowfall: 0.1 in, the usual threshold of a measurable amount. */
export const MEASURABLE_SNOWFALL_CM = 0.25;

/** The season's first day for snowfall totals: Aug 1 north of the equator, Feb 1 south. */
export function seasonStart(lat: number, today: string): string {
  const start = `${today.slice(0, 4)}-${seasonAnchorMonthDay(lat)}`;
  return start <= today ? start : `${Number(today.slice(0, 4)) - 1}-${seasonAnchorMonthDay(lat)}`;
}

/**
 * The newest day since the season's start with measurable summit snowfall: among `seen` (today
 * counting only the hours before `hour`), else `earlier` (the last such day before them).
 */
export function lastSnowfall(resort: ResortFacts, seen: readonly DailyWeather[], today: string, hour: number, earlier: Snowfall | null): Snowfall | null {
  const start = seasonStart(resort.lat, today);
  for (let i = seen.length - 1; i >= 0; i--) {
    const d = seen[i]!;
    if (d.date < start) return null;
    const cm =
      d.date === today
        ? round1(
            hoursOf(resort.id, d)
              .slice(0, hour)
              .reduce((a, b) => a + b, 0),
          )
        : d.snowfallSummitCm;
    if (cm >= MEASURABLE_SNOWFALL_CM) return { date: d.date, cm };
  }
  return earlier && earlier.date >= start && earlier.date < (seen[0]?.date ?? today) ? earlier : null;
}

export interface TrailState {
  status: TrailStatus;
  grooming: GroomingStatus;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** `x` kept within the two bounds, whichever is lower. */
const between = (x: number, a: number, b: number) => Math.min(Math.max(x, Math.min(a, b)), Math.max(a, b));

/** Days up to and including `today`, newest last. */
function observed(days: readonly DailyWeather[], today: string): DailyWeather[] {
  return days.filter((d) => d.date <= today);
}

function snowSince(days: readonly DailyWeather[], today: string, n: number): number {
  const from = addDays(today, -(n - 1));
  return round1(days.filter((d) => d.date >= from && d.date <= today).reduce((s, d) => s + d.snowfallSummitCm, 0));
}

export function operatingStatus(
  resort: ResortFacts,
  day: DailyWeather | undefined,
  today: string,
): { status: OperatingStatus; reason: string; season: PlannedSeason } {
  const season = plannedSeason(today, resort.lat, resort.summitElevation);
  if (!inSeason(today, season)) return { status: 'CLOSED', reason: `out of season; opens ${season.opens}`, season };
  if (!day || day.snowDepthBaseCm < MIN_OPERATING_BASE_CM) {
    return { status: 'CLOSED', reason: `not enough snow (base under ${MIN_OPERATING_BASE_CM} cm)`, season };
  }
  return { status: 'OPEN', reason: 'open for the season', season };
}

export function skiableShare(status: OperatingStatus, baseDepthCm: number): number {
  if (status !== 'OPEN') return 0;
  const share = 0.2 + (0.8 * (baseDepthCm - MIN_OPERATING_BASE_CM)) / (FULL_COVER_BASE_CM - MIN_OPERATING_BASE_CM);
  return Math.max(0, Math.min(1, share));
}

export function primarySurface(days: readonly DailyWeather[], today: string): SnowSurface {
  const seen = observed(days, today);
  const day = seen[seen.length - 1];
  if (!day || day.snowDepthBaseCm <= 0) return 'NO_SNOW';
  const new24 = day.snowfallSummitCm;
  const new72 = snowSince(seen, today, 3);
  const new7d = snowSince(seen, today, 7);
  const rainedRecently = seen.slice(-2).some((d) => d.precipitationMm > 2 && d.snowfallBaseCm === 0);
  if (day.snowDepthBaseCm < 30) return 'THIN_COVER';
  if (new24 >= 10) return day.windGustSummitKmh >= 60 ? 'WIND_BLOWN' : 'POWDER';
  if (rainedRecently) return day.baseTempMin <= 0 ? 'ICY' : 'WET_SNOW';
  if (new72 >= 15) return 'PACKED_POWDER';
  if (day.baseTempMax > 3 && day.baseTempMin < -1) return 'CORN';
  if (day.baseTempMin > 0) return 'SPRING_SNOW';
  if (day.baseTempMax > 3) return 'GRANULAR';
  if (new7d === 0 && day.baseTempMax < 0) return 'HARD_PACKED';
  return 'MACHINE_GROOMED';
}

export function trailState(trail: TrailFacts, share: number, newSnow24hCm: number): TrailState {
  const open = share > 0 && trail.openThreshold <= share;
  if (!open) return { status: 'CLOSED', grooming: 'UNGROOMED' };
  // Easy terrain is groomed nightly; steep terrain partly, and left alone after a big dump.
  const gentle = trail.difficulty === 'BEGINNER' || trail.difficulty === 'INTERMEDIATE';
  const groomed = gentle || (newSnow24hCm < 20 && trail.groomThreshold < 0.35);
  return { status: 'OPEN', grooming: groomed ? 'GROOMED' : 'UNGROOMED' };
}

export function liftState(lift: LiftFacts, share: number, summitGustKmh: number): LiftStatus {
  if (share <= 0) return 'CLOSED';
  if (lift.openThreshold > share + 0.1) return 'CLOSED';
  if (lift.openThreshold > share) return 'SCHEDULED';
  const sheltered = lift.type === 'MAGIC_CARPET' || lift.type === 'ROPE_TOW' || lift.type === 'PLATTER' || lift.type === 'T_BAR';
  if (sheltered) return 'OPEN';
  const limit = lift.type === 'CABLE_CAR' || lift.type === 'FUNICULAR' ? WIND_HOLD_GUST_CABLE_CAR_KMH : WIND_HOLD_GUST_KMH;
  const exposed = lift.openThreshold >= UPPER_MOUNTAIN_THRESHOLD;
  if (summitGustKmh >= WIND_HOLD_ALL_GUST_KMH || (exposed && summitGustKmh >= limit)) return 'HOLD';
  return 'OPEN';
}

/**
 * The report at a resort's local date and hour. New snow over 24 h, 72 h and 7 days is summit
 * snowfall in the whole hours before `at` (src/domain/weather/hourly.ts); depths, temperatures,
 * surface and what runs follow the local day.
 */
export function snowReport(
  resort: ResortFacts,
  days: readonly DailyWeather[],
  trails: readonly TrailFacts[],
  lifts: readonly LiftFacts[],
  at: ReportTime,
  /** The last measurable snowfall before `days` begin (the stored window reaches further back). */
  earlierSnowfall: Snowfall | null = null,
): { report: SnowReport; trailStates: TrailState[]; liftStates: LiftStatus[] } {
  const today = at.date;
  const seen = observed(days, today);
  const day = seen[seen.length - 1];
  const { status, reason, season } = operatingStatus(resort, day && day.date === today ? day : undefined, today);
  const depth = day?.snowDepthBaseCm ?? 0;
  const share = skiableShare(status, depth);
  const newSnow24hCm = snowfallBefore(resort.id, seen, today, at.hour, 24);
  const trailStates = trails.map((t) => trailState(t, share, newSnow24hCm));
  const liftStates = lifts.map((l) => liftState(l, share, day?.windGustSummitKmh ?? 0));
  return {
    report: {
      date: today,
      status,
      statusReason: reason,
      season,
      snowDepthBaseCm: round1(depth),
      snowDepthMidCm: round1(between(day?.snowDepthMidCm ?? 0, depth, day?.snowDepthSummitCm ?? 0)),
      snowDepthSummitCm: round1(day?.snowDepthSummitCm ?? 0),
      newSnow24hCm,
      newSnow48hCm: snowfallBefore(resort.id, seen, today, at.hour, 48),
      newSnow72hCm: snowfallBefore(resort.id, seen, today, at.hour, 72),
      newSnow7dCm: snowfallBefore(resort.id, seen, today, at.hour, 7 * 24),
      seasonSnowfallCm: day?.seasonSnowfallCm ?? 0,
      lastSnowfall: lastSnowfall(resort, seen, today, at.hour, earlierSnowfall),
      surface: primarySurface(days, today),
      hour: at.hour,
      skiableShare: Math.round(share * 1000) / 1000,
      openTrails: trailStates.filter((t) => t.status === 'OPEN').length,
      totalTrails: trails.length,
      openLifts: liftStates.filter((s) => s === 'OPEN').length,
      totalLifts: lifts.length,
    },
    trailStates,
    liftStates,
  };
}
