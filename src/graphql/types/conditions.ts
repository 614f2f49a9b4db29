import { builder } from '../builder.js';
import type { ConditionsView, CurrentWeatherView, ForecastDayView, ForecastLevelView, WeatherView } from '../../data/snapshots/views.js';
import { UnitLabelsRef } from './units.js';
import { MEASURABLE_SNOWFALL_CM, MIN_OPERATING_BASE_CM, WIND_HOLD_GUST_KMH } from '../../domain/conditions.js';
import { OPERATING_STATUSES, SNOW_SURFACES } from '../../domain/conditions.js';
import { WEATHER_SUMMARIES } from '../../domain/weather/current.js';

export const OperatingStatusEnum = builder.enumType('OperatingStatus', {
  description: `OPEN while inside the planned season with at least ${MIN_OPERATING_BASE_CM} cm of base; CLOSED otherwise (statusReason says why).`,
  values: OPERATING_STATUSES,
});

export const SnowSurfaceEnum = builder.enumType('SnowSurface', {
  description: 'The primary snow surface, as ski reports name it.',
  values: SNOW_SURFACES,
});

export const WeatherSummaryEnum = builder.enumType('WeatherSummary', {
  description: 'SNOW: snow at the base; MIXED: rain at the base, snow up high; RAIN; DRY.',
  values: WEATHER_SUMMARIES,
});

const SnowfallRef = builder.objectRef<{ date: string; amount: number }>('Snowfall').implement({
  description: 'A day’s summit snowfall.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date', description: 'The resort’s local date.' }),
    amount: t.exposeFloat('amount', { description: 'Summit snowfall that day, in `units.depth`.' }),
  }),
});

export const ConditionsRef = builder.objectRef<ConditionsView>('Conditions').implement({
  description:
    'Today’s snow report, in the resort’s local time. Depths and snowfall in `units.depth`; new snow is measured at the summit, ' +
    'over the whole hours before `updatedAt`: the last 24, 48, 72 and 168 hours.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description:
        'The resort, the hour the report describes and the units (e.g. "vail@2027-01-15T05:00:00-07:00/METRIC"): what its numbers depend on, so a client cache never mixes two.',
    }),
    date: t.expose('date', { type: 'Date', description: 'The report date: the resort’s local date at `updatedAt`.' }),
    updatedAt: t.exposeString('updatedAt', {
      description: 'The moment the report describes (the start of the current hour), ISO 8601 with the resort’s UTC offset, e.g. 2027-01-15T05:00:00-07:00.',
    }),
    source: t.exposeString('source', { description: 'Where the numbers come from; "simulated" for the offline generator.' }),
    units: t.expose('units', { type: UnitLabelsRef }),
    status: t.expose('status', { type: OperatingStatusEnum }),
    statusReason: t.exposeString('statusReason'),
    seasonOpens: t.exposeString('seasonOpens', { description: 'Planned opening date of this (or the next) season.' }),
    seasonCloses: t.exposeString('seasonCloses', { description: 'Planned closing date of this (or the next) season.' }),
    snowDepthBase: t.exposeFloat('snowDepthBase'),
    snowDepthMid: t.exposeFloat('snowDepthMid', {
      description:
        'Depth at mid-mountain, the elevation halfway between base and summit (Open-Meteo’s at that elevation, or the generator’s), kept between the base’s and the summit’s.',
    }),
    snowDepthSummit: t.exposeFloat('snowDepthSummit'),
    newSnow24h: t.exposeFloat('newSnow24h', { description: 'Summit snowfall in the 24 hours before `updatedAt`.' }),
    newSnow48h: t.exposeFloat('newSnow48h', { description: 'Summit snowfall in the 48 hours before `updatedAt`.' }),
    newSnow72h: t.exposeFloat('newSnow72h', { description: 'Summit snowfall in the 72 hours before `updatedAt`.' }),
    newSnow7d: t.exposeFloat('newSnow7d', { description: 'Summit snowfall in the 168 hours before `updatedAt`.' }),
    snowfallNext48h: t.exposeFloat('snowfallNext48h', { description: 'Forecast summit snowfall in the 48 hours from `updatedAt` (what storm watch ranks).' }),
    seasonSnowfall: t.exposeFloat('seasonSnowfall', { description: 'Summit snowfall since the season began.' }),
    lastSnowfall: t.expose('lastSnowfall', {
      type: SnowfallRef,
      nullable: true,
      description: `The last day this season (since Aug 1 north of the equator, Feb 1 south) with measurable summit snowfall (at least ${MEASURABLE_SNOWFALL_CM} cm, 0.1 in), looked for over the stored 60 days; today counts with the hours before \`updatedAt\`. Null when none.`,
    }),
    surface: t.expose('surface', { type: SnowSurfaceEnum }),
    openTrails: t.exposeInt('openTrails'),
    totalTrails: t.exposeInt('totalTrails'),
    openTrailsPct: t.exposeFloat('openTrailsPct', { description: 'Open trails as a percentage of all, one decimal.' }),
    openLifts: t.exposeInt('openLifts'),
    totalLifts: t.exposeInt('totalLifts'),
    temperature: t.exposeFloat('temperature', { description: 'Temperature now at the base.' }),
    temperatureSummit: t.exposeFloat('temperatureSummit', { description: 'Temperature now at the summit.' }),
    windSpeed: t.exposeFloat('windSpeed', { description: 'Summit wind speed today.' }),
    windGust: t.exposeFloat('windGust', { description: `Summit gusts today; exposed lifts go on HOLD from ${WIND_HOLD_GUST_KMH} km/h.` }),
    summary: t.expose('summary', { type: WeatherSummaryEnum }),
  }),
});

const ForecastLevelRef = builder.objectRef<ForecastLevelView>('ForecastLevel').implement({
  description: 'A forecast day at one elevation.',
  fields: (t) => ({
    elevation: t.exposeInt('elevation'),
    tempMin: t.exposeFloat('tempMin'),
    tempMax: t.exposeFloat('tempMax'),
    snowfall: t.exposeFloat('snowfall'),
    windSpeed: t.exposeFloat('windSpeed'),
    windGust: t.exposeFloat('windGust'),
  }),
});

export const ForecastDayRef = builder.objectRef<ForecastDayView>('ForecastDay').implement({
  description: 'One forecast day (UTC date) at the base, mid-mountain and summit.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date' }),
    summary: t.expose('summary', { type: WeatherSummaryEnum }),
    precipitationProbability: t.exposeInt('precipitationProbability', { description: 'Percent.' }),
    precipitation: t.exposeFloat('precipitation', { description: 'Water equivalent at the base.' }),
    snowLine: t.exposeInt('snowLine', { description: 'Elevation where rain turns to snow.' }),
    windDirection: t.exposeInt('windDirection', { description: 'Degrees the wind comes from (270 = west).' }),
    base: t.expose('base', { type: ForecastLevelRef }),
    mid: t.expose('mid', { type: ForecastLevelRef, description: 'Mid-mountain: the elevation halfway between base and summit.' }),
    summit: t.expose('summit', { type: ForecastLevelRef }),
  }),
});

const CurrentWeatherRef = builder.objectRef<CurrentWeatherView>('CurrentWeather').implement({
  description: 'Weather now at the base (summit temperature too).',
  fields: (t) => ({
    time: t.expose('time', { type: 'DateTime', description: 'When this was computed.' }),
    summary: t.expose('summary', { type: WeatherSummaryEnum }),
    temperature: t.exposeFloat('temperature'),
    temperatureSummit: t.exposeFloat('temperatureSummit'),
    windSpeed: t.exposeFloat('windSpeed'),
    windGust: t.exposeFloat('windGust'),
    windDirection: t.exposeInt('windDirection'),
    snowfall24h: t.exposeFloat('snowfall24h', { description: 'Snowfall at the base over the last 24 h.' }),
    precipitation24h: t.exposeFloat('precipitation24h'),
  }),
});

export const WeatherRef = builder.objectRef<WeatherView>('Weather').implement({
  description: 'Current weather and the daily forecast for today and the next six days.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The resort, the hour and the units, as for Conditions.' }),
    source: t.exposeString('source'),
    units: t.expose('units', { type: UnitLabelsRef }),
    current: t.expose('current', { type: CurrentWeatherRef }),
    forecast: t.expose('forecast', { type: [ForecastDayRef], complexity: { field: 1, multiplier: 7 } }),
  }),
});
