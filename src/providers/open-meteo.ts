import { z } from 'zod';
import { addDays, dayNumber } from '../domain/dates.js';
import { formatHours } from '../domain/weather/hourly.js';
import type { HistoryDay } from '../domain/history.js';
import type { ResortFacts } from '../domain/resort.js';
import { midElevation, type DailyWeather } from '../domain/weather/daily.js';
import { seasonAnchorMonthDay } from '../domain/weather/climate.js';
import { snowLine } from '../domain/weather/generator.js';
import type { ConditionsProvider, HistoryProvider } from './provider.js';
import { UpstreamError, type CallBounds, type Upstream } from './upstream.js';

/**
 * Open-Meteo (keyless): the forecast API for conditions (past days and a 7-day forecast, at the
 * base and the summit elevation in one multi-location call) and the historical archive API for
 * baselines. Documented JSON: `daily` holds parallel arrays keyed by variable, `hourly.snow_depth`
 * is in metres; errors are `{ "error": true, "reason": "…" }`.
 */

const nums = z.array(z.number().nullable());
const Location = z.object({
  latitude: z.number(),
  longitude: z.number(),
  daily: z.object({
    time: z.array(z.string().regex(/^\d{4}-\d{2}-\d{2}$/)),
    temperature_2m_max: nums,
    temperature_2m_min: nums,
    precipitation_sum: nums,
    snowfall_sum: nums,
    precipitation_probability_max: nums.optional(),
    wind_speed_10m_max: nums.optional(),
    wind_gusts_10m_max: nums.optional(),
    wind_direction_10m_dominant: nums.optional(),
  }),
  hourly: z.object({ time: z.array(z.string()), snow_depth: nums, snowfall: nums.optional() }).optional(),
});
type Location = z.infer<typeof Location>;
const Locations = z.union([z.array(Location).min(1), Location.transform((l) => [l])]);

const DAILY_FORECAST =
  'temperature_2m_max,temperature_2m_min,precipitation_sum,snowfall_sum,precipitation_probability_max,wind_speed_10m_max,wind_gusts_10m_max,wind_direction_10m_dominant';
const DAILY_ARCHIVE = 'temperature_2m_max,temperature_2m_min,precipitation_sum,snowfall_sum';
/** The forecast API serves at most this many past days. */
export const MAX_PAST_DAYS = 92;
/** The forecast API forecasts at most this many days. */
export const MAX_FORECAST_DAYS = 16;

export interface OpenMeteoUrls {
  forecast: string;
  archive: string;
}

const r1 = (x: number) => Math.round(x * 10) / 10;

/** Gaps (null) in amounts count as none; in temperatures they take the nearest known value. */
function filled(values: readonly (number | null)[] | undefined, n: number, kind: 'amount' | 'state'): number[] {
  const v = Array.from({ length: n }, (_, i) => values?.[i] ?? null);
  if (kind === 'amount') return v.map((x) => x ?? 0);
  const known = v.findIndex((x) => x !== null);
  if (known === -1) throw new Error('no values');
  let last = v[known]!;
  return v.map((x) => (x === null ? last : (last = x)));
}

/** Daily mean snow depth in cm from hourly metres. */
function dailySnowDepth(loc: Location): Map<string, number> {
  const out = new Map<string, { sum: number; n: number }>();
  const h = loc.hourly;
  if (!h) return new Map();
  h.time.forEach((t, i) => {
    const v = h.snow_depth[i];
    if (v === null || v === undefined) return;
    const d = t.slice(0, 10);
    const acc = out.get(d) ?? { sum: 0, n: 0 };
    acc.sum += v;
    acc.n++;
    out.set(d, acc);
  });
  return new Map([...out].map(([d, { sum, n }]) => [d, r1((100 * sum) / n)]));
}

/**
 * Summit snowfall per local date and hour. Open-Meteo's hourly snowfall is the amount of the
 * preceding hour, so the value at 01:00 is hour 0 of that day and the value at 00:00 the last hour
 * of the day before. Days missing an hour are left to the daily total's split.
 */
function hourlySnowfall(loc: Location): Map<string, string> {
  const h = loc.hourly;
  const out = new Map<string, (number | null)[]>();
  if (!h?.snowfall) return new Map();
  h.time.forEach((t, i) => {
    const v = h.snowfall![i];
    const hour = Number(t.slice(11, 13));
    const date = hour === 0 ? addDays(t.slice(0, 10), -1) : t.slice(0, 10);
    const hours = out.get(date) ?? out.set(date, new Array(24).fill(null)).get(date)!;
    hours[(hour + 23) % 24] = v ?? null;
  });
  const complete = new Map<string, string>();
  for (const [date, hours] of out) if (hours.every((v) => v !== null)) complete.set(date, formatHours(hours as number[]));
  return complete;
}

/** Data that parsed but does not add up is the provider's fault too: a 502, never a 500. */
async function malformedAsUpstream<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof UpstreamError) throw err;
    throw new UpstreamError('open-meteo', 'malformed response', (err as Error).message);
  }
}

export class OpenMeteoProvider implements ConditionsProvider, HistoryProvider {
  readonly name = 'open-meteo';

  constructor(
    private readonly upstream: Upstream,
    private readonly urls: OpenMeteoUrls,
  ) {}

  private async dailyOf(resort: ResortFacts, from: string, to: string, today: string, bounds: CallBounds): Promise<DailyWeather[]> {
    // Open-Meteo counts past and forecast days from the resort's local today, which can be a day
    // either side of `today`: one more each way covers the window whatever the zone.
    const pastDays = Math.min(MAX_PAST_DAYS, Math.max(0, dayNumber(today) - dayNumber(from)) + 1);
    const forecastDays = Math.min(MAX_FORECAST_DAYS, Math.max(1, dayNumber(to) - dayNumber(today) + 1) + 1);
    // Three points at the resort's coordinates: its base, mid-mountain and summit elevations
    // (Open-Meteo corrects each for its elevation).
    const url =
      `${this.urls.forecast}?latitude=${resort.lat},${resort.lat},${resort.lat}&longitude=${resort.lng},${resort.lng},${resort.lng}` +
      `&elevation=${resort.baseElevation},${midElevation(resort)},${resort.summitElevation}&daily=${DAILY_FORECAST}&hourly=snow_depth,snowfall` +
      `&past_days=${pastDays}&forecast_days=${forecastDays}&timezone=${encodeURIComponent(resort.timezone)}`;
    const locations = await this.upstream.getJson(url, Locations, bounds);
    if (locations.length !== 3) throw new Error(`asked for base, mid and summit, got ${locations.length} locations`);
    const [base, mid, summit] = [locations[0]!, locations[1]!, locations[2]!];
    const n = base.daily.time.length;
    if (summit.daily.time.length !== n || mid.daily.time.length !== n) throw new Error('base, mid and summit series differ in length');
    const col = (loc: Location, key: keyof Location['daily'], kind: 'amount' | 'state') => filled(loc.daily[key] as (number | null)[] | undefined, n, kind);
    const b = {
      max: col(base, 'temperature_2m_max', 'state'),
      min: col(base, 'temperature_2m_min', 'state'),
      p: col(base, 'precipitation_sum', 'amount'),
      s: col(base, 'snowfall_sum', 'amount'),
      pop: base.daily.precipitation_probability_max,
      w: col(base, 'wind_speed_10m_max', 'amount'),
      g: col(base, 'wind_gusts_10m_max', 'amount'),
      dir: col(base, 'wind_direction_10m_dominant', 'amount'),
    };
    const t = {
      max: col(summit, 'temperature_2m_max', 'state'),
      min: col(summit, 'temperature_2m_min', 'state'),
      s: col(summit, 'snowfall_sum', 'amount'),
      w: col(summit, 'wind_speed_10m_max', 'amount'),
      g: col(summit, 'wind_gusts_10m_max', 'amount'),
    };
    const m = {
      max: col(mid, 'temperature_2m_max', 'state'),
      min: col(mid, 'temperature_2m_min', 'state'),
      s: col(mid, 'snowfall_sum', 'amount'),
      w: col(mid, 'wind_speed_10m_max', 'amount'),
      g: col(mid, 'wind_gusts_10m_max', 'amount'),
    };
    const depthMid = dailySnowDepth(mid);
    const depthBase = dailySnowDepth(base);
    const depthSummit = dailySnowDepth(summit);
    const summitHours = hourlySnowfall(summit);
    const anchor = seasonAnchorMonthDay(resort.lat);
    let season = 0;
    const out: DailyWeather[] = [];
    base.daily.time.forEach((date, i) => {
      if (date.slice(5) === anchor) season = 0;
      season += t.s[i]!;
      if (date < from || date > to) return;
      const precipitationMm = r1(b.p[i]!);
      const forecastPop = b.pop?.[i];
      out.push({
        date,
        baseTempMin: r1(b.min[i]!),
        baseTempMax: r1(b.max[i]!),
        summitTempMin: r1(t.min[i]!),
        summitTempMax: r1(t.max[i]!),
        precipitationMm,
        precipitationProbability: date >= today && forecastPop !== null && forecastPop !== undefined ? Math.round(forecastPop) : precipitationMm > 0 ? 100 : 0,
        snowfallBaseCm: r1(b.s[i]!),
        snowfallSummitCm: r1(t.s[i]!),
        snowDepthBaseCm: depthBase.get(date) ?? 0,
        snowDepthSummitCm: depthSummit.get(date) ?? 0,
        seasonSnowfallCm: r1(season),
        windSpeedBaseKmh: r1(b.w[i]!),
        windGustBaseKmh: r1(Math.max(b.g[i]!, b.w[i]!)),
        windSpeedSummitKmh: r1(t.w[i]!),
        windGustSummitKmh: r1(Math.max(t.g[i]!, t.w[i]!)),
        windDirectionDeg: Math.round(b.dir[i]!) % 360,
        snowLineM: snowLine(resort.baseElevation, (b.min[i]! + b.max[i]!) / 2),
        midTempMin: r1(m.min[i]!),
        midTempMax: r1(m.max[i]!),
        snowfallMidCm: r1(m.s[i]!),
        snowDepthMidCm: depthMid.get(date) ?? 0,
        windSpeedMidKmh: r1(m.w[i]!),
        windGustMidKmh: r1(Math.max(m.g[i]!, m.w[i]!)),
        snowfallSummitHourly: summitHours.get(date) ?? null,
      });
    });
    return out;
  }

  /**
   * Recent days come from the forecast API (the archive lags by days); earlier years from the
   * archive. Every point is asked for in one multi-location call at the base elevation.
   */
  async history(
    resort: ResortFacts,
    points: readonly { lat: number; lng: number }[],
    from: string,
    to: string,
    recent: boolean,
    bounds: CallBounds = {},
  ): Promise<HistoryDay[][]> {
    return malformedAsUpstream(() => this.historyOf(resort, points, from, to, recent, bounds));
  }

  async daily(resort: ResortFacts, from: string, to: string, today: string, bounds: CallBounds = {}): Promise<DailyWeather[]> {
    return malformedAsUpstream(() => this.dailyOf(resort, from, to, today, bounds));
  }

  private async historyOf(
    resort: ResortFacts,
    points: readonly { lat: number; lng: number }[],
    from: string,
    to: string,
    recent: boolean,
    bounds: CallBounds,
  ): Promise<HistoryDay[][]> {
    const lats = points.map((p) => p.lat).join(',');
    const lngs = points.map((p) => p.lng).join(',');
    const elevations = points.map(() => resort.baseElevation).join(',');
    // Days are the resort's local days, as everywhere else.
    const zone = encodeURIComponent(resort.timezone);
    const url = recent
      ? `${this.urls.forecast}?latitude=${lats}&longitude=${lngs}&elevation=${elevations}&daily=${DAILY_ARCHIVE}&hourly=snow_depth` +
        `&start_date=${from}&end_date=${to}&timezone=${zone}`
      : `${this.urls.archive}?latitude=${lats}&longitude=${lngs}&elevation=${elevations}&daily=${DAILY_ARCHIVE}&hourly=snow_depth` +
        `&start_date=${from}&end_date=${to}&timezone=${zone}`;
    const locations = await this.upstream.getJson(url, Locations, bounds);
    if (locations.length !== points.length) throw new Error(`asked for ${points.length} points, got ${locations.length}`);
    return locations.map((loc) => {
      const n = loc.daily.time.length;
      const max = filled(loc.daily.temperature_2m_max, n, 'state');
      const min = filled(loc.daily.temperature_2m_min, n, 'state');
      const p = filled(loc.daily.precipitation_sum, n, 'amount');
      const s = filled(loc.daily.snowfall_sum, n, 'amount');
      const depth = dailySnowDepth(loc);
      return loc.daily.time.map((date, i) => ({
        date,
        snowfallCm: r1(s[i]!),
        precipitationMm: r1(p[i]!),
        snowDepthCm: depth.get(date) ?? 0,
        tempMinC: r1(min[i]!),
        tempMaxC: r1(max[i]!),
      }));
    });
  }
}
