import { addDays } from '../../domain/dates.js';
import type { OperatingStatus, SnowSurface } from '../../domain/conditions.js';
import { DIFFICULTIES, LIFT_TYPES, type ResortFacts } from '../../domain/resort.js';
import { openTrailsPct, stormOutlook, type StormOutlook } from '../../domain/rankings.js';
import { summaryOf, temperatureAt, type WeatherSummary } from '../../domain/weather/current.js';
import { midElevation, type DailyWeather } from '../../domain/weather/daily.js';
import { toUnits, UNIT_LABELS, type UnitLabels, type Units } from '../../domain/units.js';
import { FORECAST_DAYS } from '../../domain/weather/window.js';
import { memo, type ResortSnapshot } from './snapshot.js';

/**
 * What the API shows, built from a snapshot in the units asked for: pure, and each computed once
 * per snapshot and units (a compare or a ranking asks for the same view many times). Field names
 * are the GraphQL field names; the REST shims shape their documented responses from them.
 */

export interface ConditionsView {
  /** Resort, hour and units: everything the numbers depend on (a client cache's key). */
  id: string;
  date: string;
  updatedAt: string;
  source: string;
  units: UnitLabels;
  status: OperatingStatus;
  statusReason: string;
  seasonOpens: string;
  seasonCloses: string;
  snowDepthBase: number;
  snowDepthMid: number;
  snowDepthSummit: number;
  newSnow24h: number;
  newSnow48h: number;
  newSnow72h: number;
  newSnow7d: number;
  snowfallNext48h: number;
  seasonSnowfall: number;
  lastSnowfall: { date: string; amount: number } | null;
  surface: SnowSurface;
  openTrails: number;
  totalTrails: number;
  openTrailsPct: number;
  openLifts: number;
  totalLifts: number;
  temperature: number;
  temperatureSummit: number;
  windSpeed: number;
  windGust: number;
  summary: WeatherSummary;
}

export interface ForecastLevelView {
  elevation: number;
  tempMin: number;
  tempMax: number;
  snowfall: number;
  windSpeed: number;
  windGust: number;
}

export interface ForecastDayView {
  date: string;
  summary: WeatherSummary;
  precipitationProbability: number;
  precipitation: number;
  snowLine: number;
  windDirection: number;
  base: ForecastLevelView;
  mid: ForecastLevelView;
  summit: ForecastLevelView;
}

export interface CurrentWeatherView {
  time: string;
  summary: WeatherSummary;
  temperature: number;
  temperatureSummit: number;
  windSpeed: number;
  windGust: number;
  windDirection: number;
  snowfall24h: number;
  precipitation24h: number;
}

export interface WeatherView {
  /** Resort, hour and units, as for conditions. */
  id: string;
  source: string;
  units: UnitLabels;
  current: CurrentWeatherView;
  forecast: ForecastDayView[];
}

/** A day with no stored weather (a provider has not covered it): calm, dry, no snow. */
function emptyDay(date: string): DailyWeather {
  return {
    date,
    baseTempMin: 0,
    baseTempMax: 0,
    summitTempMin: 0,
    summitTempMax: 0,
    precipitationMm: 0,
    precipitationProbability: 0,
    snowfallBaseCm: 0,
    snowfallSummitCm: 0,
    snowDepthBaseCm: 0,
    snowDepthSummitCm: 0,
    seasonSnowfallCm: 0,
    windSpeedBaseKmh: 0,
    windGustBaseKmh: 0,
    windSpeedSummitKmh: 0,
    windGustSummitKmh: 0,
    windDirectionDeg: 0,
    snowLineM: 0,
    midTempMin: 0,
    midTempMax: 0,
    snowfallMidCm: 0,
    snowDepthMidCm: 0,
    windSpeedMidKmh: 0,
    windGustMidKmh: 0,
  };
}

export function todayOf(s: ResortSnapshot): DailyWeather {
  return s.days.find((d) => d.date === s.today) ?? emptyDay(s.today);
}

/** The identity of a resort's report or weather: the resort, the hour it describes, the units. */
const viewId = (s: ResortSnapshot, u: Units) => `${s.resort.id}@${s.updatedAt}/${u}`;

export function conditionsView(s: ResortSnapshot, u: Units): ConditionsView {
  return memo(s, `conditions:${u}`, () => computeConditions(s, u));
}

function computeConditions(s: ResortSnapshot, u: Units): ConditionsView {
  const now = s.asOf;
  const day = todayOf(s);
  const r = s.report;
  return {
    id: viewId(s, u),
    date: r.date,
    updatedAt: s.updatedAt,
    source: s.source,
    units: UNIT_LABELS[u],
    status: r.status,
    statusReason: r.statusReason,
    seasonOpens: r.season.opens,
    seasonCloses: r.season.closes,
    snowDepthBase: toUnits.depth(r.snowDepthBaseCm, u),
    snowDepthMid: toUnits.depth(r.snowDepthMidCm, u),
    snowDepthSummit: toUnits.depth(r.snowDepthSummitCm, u),
    newSnow24h: toUnits.depth(r.newSnow24hCm, u),
    newSnow48h: toUnits.depth(r.newSnow48hCm, u),
    newSnow72h: toUnits.depth(r.newSnow72hCm, u),
    newSnow7d: toUnits.depth(r.newSnow7dCm, u),
    snowfallNext48h: toUnits.depth(stormOutlookView(s).snowfall48hCm, u),
    seasonSnowfall: toUnits.depth(r.seasonSnowfallCm, u),
    lastSnowfall: r.lastSnowfall ? { date: r.lastSnowfall.date, amount: toUnits.depth(r.lastSnowfall.cm, u) } : null,
    surface: r.surface,
    openTrails: r.openTrails,
    totalTrails: r.totalTrails,
    openTrailsPct: openTrailsPct(r),
    openLifts: r.openLifts,
    totalLifts: r.totalLifts,
    temperature: toUnits.temperature(temperatureAt(day.baseTempMin, day.baseTempMax, now, s.resort.lng), u),
    temperatureSummit: toUnits.temperature(temperatureAt(day.summitTempMin, day.summitTempMax, now, s.resort.lng), u),
    windSpeed: toUnits.speed(day.windSpeedSummitKmh, u),
    windGust: toUnits.speed(day.windGustSummitKmh, u),
    summary: summaryOf(day),
  };
}

/** A forecast day at one elevation. */
function level(resort: ResortFacts, d: DailyWeather, at: 'base' | 'mid' | 'summit', u: Units): ForecastLevelView {
  const [elevation, tempMin, tempMax, snowfall, windSpeed, windGust] =
    at === 'base'
      ? [resort.baseElevation, d.baseTempMin, d.baseTempMax, d.snowfallBaseCm, d.windSpeedBaseKmh, d.windGustBaseKmh]
      : at === 'mid'
        ? [midElevation(resort), d.midTempMin, d.midTempMax, d.snowfallMidCm, d.windSpeedMidKmh, d.windGustMidKmh]
        : [resort.summitElevation, d.summitTempMin, d.summitTempMax, d.snowfallSummitCm, d.windSpeedSummitKmh, d.windGustSummitKmh];
  return {
    elevation: toUnits.elevation(elevation, u),
    tempMin: toUnits.temperature(tempMin, u),
    tempMax: toUnits.temperature(tempMax, u),
    snowfall: toUnits.depth(snowfall, u),
    windSpeed: toUnits.speed(windSpeed, u),
    windGust: toUnits.speed(windGust, u),
  };
}

export function forecastView(s: ResortSnapshot, u: Units): ForecastDayView[] {
  return memo(s, `forecast:${u}`, () => computeForecast(s, u));
}

function computeForecast(s: ResortSnapshot, u: Units): ForecastDayView[] {
  const last = addDays(s.today, FORECAST_DAYS - 1);
  return s.days
    .filter((d) => d.date >= s.today && d.date <= last)
    .map((d) => ({
      date: d.date,
      summary: summaryOf(d),
      precipitationProbability: d.precipitationProbability,
      precipitation: toUnits.precipitation(d.precipitationMm, u),
      snowLine: toUnits.elevation(d.snowLineM, u),
      windDirection: d.windDirectionDeg,
      base: level(s.resort, d, 'base', u),
      mid: level(s.resort, d, 'mid', u),
      summit: level(s.resort, d, 'summit', u),
    }));
}

export function weatherView(s: ResortSnapshot, u: Units): WeatherView {
  return memo(s, `weather:${u}`, () => computeWeather(s, u));
}

function computeWeather(s: ResortSnapshot, u: Units): WeatherView {
  const now = s.asOf;
  const day = todayOf(s);
  return {
    id: viewId(s, u),
    source: s.source,
    units: UNIT_LABELS[u],
    current: {
      time: now.toISOString(),
      summary: summaryOf(day),
      temperature: toUnits.temperature(temperatureAt(day.baseTempMin, day.baseTempMax, now, s.resort.lng), u),
      temperatureSummit: toUnits.temperature(temperatureAt(day.summitTempMin, day.summitTempMax, now, s.resort.lng), u),
      windSpeed: toUnits.speed(day.windSpeedBaseKmh, u),
      windGust: toUnits.speed(day.windGustBaseKmh, u),
      windDirection: day.windDirectionDeg,
      snowfall24h: toUnits.depth(day.snowfallBaseCm, u),
      precipitation24h: toUnits.precipitation(day.precipitationMm, u),
    },
    forecast: forecastView(s, u),
  };
}

export function trailSummaryView(s: ResortSnapshot) {
  return memo(s, 'trailSummary', () => computeTrailSummary(s));
}

function computeTrailSummary(s: ResortSnapshot) {
  const trails = s.trails.all();
  return {
    total: trails.length,
    open: trails.filter((t) => t.status === 'OPEN').length,
    groomed: trails.filter((t) => t.grooming === 'GROOMED').length,
    byDifficulty: DIFFICULTIES.map((difficulty) => {
      const of = trails.filter((t) => t.difficulty === difficulty);
      return { difficulty, total: of.length, open: of.filter((t) => t.status === 'OPEN').length };
    }),
    byStatus: (['OPEN', 'CLOSED'] as const).map((status) => ({ status, count: trails.filter((t) => t.status === status).length })),
  };
}

export function liftSummaryView(s: ResortSnapshot) {
  return memo(s, 'liftSummary', () => computeLiftSummary(s));
}

function computeLiftSummary(s: ResortSnapshot) {
  const lifts = s.lifts.all();
  const open = lifts.filter((l) => l.status === 'OPEN');
  return {
    total: lifts.length,
    open: open.length,
    openCapacityPerHour: open.reduce((n, l) => n + (l.capacityPerHour ?? 0), 0),
    byType: LIFT_TYPES.map((type) => {
      const of = lifts.filter((l) => l.type === type);
      return { type, total: of.length, open: of.filter((l) => l.status === 'OPEN').length };
    }).filter((x) => x.total > 0),
    byStatus: (['OPEN', 'HOLD', 'SCHEDULED', 'CLOSED'] as const).map((status) => ({ status, count: lifts.filter((l) => l.status === status).length })),
  };
}

/** Forecast snowfall at the summit over the next 48 hours. */
export function stormOutlookView(s: ResortSnapshot): StormOutlook {
  return memo(s, 'storm', () => stormOutlook(s.resort.id, s.days, s.today, s.report.hour));
}
