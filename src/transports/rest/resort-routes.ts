import { UNIT_LABELS } from '../../domain/units.js';
import { descriptiveFacts } from '../../domain/resort-fields.js';
import {
  CompareParams,
  InsightsParams,
  OpenNowParams,
  RankingParams,
  ResortHistoryParams,
  ResortListParams,
  ResortParams,
} from '../../validation/resort-params.js';
import { offsetVariable } from '../../validation/params.js';
import { route } from './route.js';
import * as R from './responses.js';
import {
  RestCompareDocument,
  RestHistoryDocument,
  RestOpenNowDocument,
  RestResortDocument,
  RestResortLiftsDocument,
  RestResortsDocument,
  RestResortTrailsDocument,
  RestResortWeatherDocument,
  RestSnowInsightsDocument,
  RestStormWatchDocument,
  RestTopSnowDocument,
  type LiftSummaryFieldsFragment,
  type ResortRefFieldsFragment,
  type ResortSummaryFragment,
  type TrailSummaryFieldsFragment,
} from './operations/generated.js';

/** The documented resort paths: each one GraphQL operation (operations/resort.graphql), shaped into the documented body. */

const resortRef = (r: ResortRefFieldsFragment) => ({ id: r.id, name: r.name, country: r.countryCode, region: r.region, continent: r.continent });
/** Ranking entries name their resort briefly, with `country` as the code. */
const withRefs = <E extends { resort: ResortRefFieldsFragment }>(entries: readonly E[]) => entries.map((e) => ({ ...e, resort: resortRef(e.resort) }));

/** Who and where a resort is, as every resort body starts. */
const identity = (r: Pick<ResortSummaryFragment, 'id' | 'name' | 'countryCode' | 'countryName' | 'region' | 'continent' | 'location' | 'timezone'>) => ({
  id: r.id,
  name: r.name,
  country: r.countryCode,
  countryName: r.countryName,
  region: r.region,
  continent: r.continent,
  location: r.location,
  timezone: r.timezone,
});

export function summary(r: ResortSummaryFragment) {
  const { source, ...conditions } = r.conditions;
  return { ...identity(r), elevation: r.elevation, conditions, source };
}

const byKey = <T, K extends keyof T>(items: readonly T[], key: K, value: (x: T) => unknown) => Object.fromEntries(items.map((x) => [x[key], value(x)]));

const trailSummary = (s: TrailSummaryFieldsFragment) => ({
  total: s.total,
  open: s.open,
  groomed: s.groomed,
  byDifficulty: byKey(s.byDifficulty, 'difficulty', (x) => ({ total: x.total, open: x.open })),
  byStatus: byKey(s.byStatus, 'status', (x) => x.count),
});

const liftSummary = (s: LiftSummaryFieldsFragment) => ({
  total: s.total,
  open: s.open,
  openCapacityPerHour: s.openCapacityPerHour,
  byType: byKey(s.byType, 'type', (x) => ({ total: x.total, open: x.open })),
  byStatus: byKey(s.byStatus, 'status', (x) => x.count),
});

export const resortRoutes = [
  route({
    freshness: 'data',
    path: '/api/resorts',
    summary: 'Resorts matching a filter, by name, one page at a time, with today’s conditions.',
    response: R.ResortList,
    params: ResortListParams,
    variables: (p) => ({ ...p, offset: offsetVariable(p.offset) }),
    operation: RestResortsDocument,
    shape: (d, p) => ({
      total: d.resorts.total,
      limit: d.resorts.limit,
      // As asked: the operation's offset stops at what a GraphQL Int carries.
      offset: p.offset,
      units: UNIT_LABELS[p.units],
      resorts: d.resorts.resorts.map(summary),
    }),
    list: 'resorts',
  }),
  route({
    freshness: 'data',
    path: '/api/resorts/:id',
    summary: 'One resort: location, elevations, operation, snow, weather, forecast, lifts and trails.',
    response: R.ResortDetail,
    params: ResortParams,
    operation: RestResortDocument,
    shape: (d, p) => {
      const r = d.resort!;
      const c = r.conditions;
      return {
        ...identity(r),
        ...descriptiveFacts(r),
        elevation: r.elevation,
        units: UNIT_LABELS[p.units],
        source: c.source,
        inventorySource: r.inventorySource,
        date: c.date,
        updatedAt: c.updatedAt,
        operation: { status: c.status, reason: c.statusReason, seasonOpens: c.seasonOpens, seasonCloses: c.seasonCloses },
        snow: {
          depthBase: c.snowDepthBase,
          depthMid: c.snowDepthMid,
          depthSummit: c.snowDepthSummit,
          newSnow24h: c.newSnow24h,
          newSnow48h: c.newSnow48h,
          newSnow72h: c.newSnow72h,
          newSnow7d: c.newSnow7d,
          seasonTotal: c.seasonSnowfall,
          lastSnowfall: c.lastSnowfall,
          surface: c.surface,
        },
        weather: r.weather.current,
        forecast: r.weather.forecast,
        lifts: liftSummary(r.liftSummary),
        trails: { ...trailSummary(r.trailSummary), openPct: c.openTrailsPct },
      };
    },
  }),
  route({
    freshness: 'data',
    path: '/api/resorts/:id/weather',
    summary: 'Current weather and the 7-day forecast at the base, mid-mountain and summit.',
    response: R.ResortWeather,
    params: ResortParams,
    operation: RestResortWeatherDocument,
    shape: (d, p) => ({
      resortId: d.resort!.id,
      name: d.resort!.name,
      source: d.resort!.weather.source,
      units: UNIT_LABELS[p.units],
      current: d.resort!.weather.current,
      forecast: d.resort!.weather.forecast,
    }),
  }),
  route({
    freshness: 'data',
    path: '/api/resorts/:id/trails',
    summary: 'Every trail with its state, and a summary.',
    response: R.ResortTrails,
    params: ResortParams,
    operation: RestResortTrailsDocument,
    shape: (d, p) => ({
      resortId: d.resort!.id,
      name: d.resort!.name,
      source: d.resort!.inventorySource,
      units: UNIT_LABELS[p.units],
      summary: trailSummary(d.resort!.trailSummary),
      trails: d.resort!.trails,
    }),
  }),
  route({
    freshness: 'data',
    path: '/api/resorts/:id/lifts',
    summary: 'Every lift with its state, and a summary.',
    response: R.ResortLifts,
    params: ResortParams,
    operation: RestResortLiftsDocument,
    variables: (p) => ({ id: p.id }),
    shape: (d) => ({
      resortId: d.resort!.id,
      name: d.resort!.name,
      // "liftie" where a live feed gave the lifts and their status, else the inventory's source.
      source: d.resort!.lifts[0]?.source ?? d.resort!.inventorySource,
      summary: liftSummary(d.resort!.liftSummary),
      lifts: d.resort!.lifts.map(({ source: _s, ...l }) => l),
    }),
  }),
  route({
    freshness: 'data',
    path: '/api/resorts/:id/compare',
    summary: 'Two resorts side by side; differences are first minus second.',
    response: R.Comparison,
    params: CompareParams,
    operation: RestCompareDocument,
    shape: (d, p) => ({
      units: UNIT_LABELS[p.units],
      resort: summary(d.compareResorts.resort),
      with: summary(d.compareResorts.with),
      distanceKm: d.compareResorts.distanceKm,
      differences: d.compareResorts.differences,
    }),
  }),
  route({
    freshness: 'data',
    path: '/api/resorts/:id/history',
    summary: 'The last days against the same calendar window in previous years.',
    response: R.History,
    params: ResortHistoryParams,
    operation: RestHistoryDocument,
    shape: (d, p) => {
      const h = d.resort.history!;
      return {
        resortId: d.resort!.id,
        name: d.resort!.name,
        provider: h.provider,
        parameters: h.parameters,
        units: UNIT_LABELS[p.units],
        window: { from: h.from, to: h.to },
        points: h.points,
        daily: h.daily.map((x) => ({ date: x.date, ...x.values, baseline: x.baseline })),
        summary: { current: h.current, baseline: h.baseline, deviation: h.deviation },
      };
    },
  }),
  route({
    freshness: 'data',
    path: '/api/conditions/top-snow',
    summary: 'Resorts with snow in the last 72 h, most 24 h snowfall first.',
    response: R.TopSnow,
    params: RankingParams,
    operation: RestTopSnowDocument,
    shape: (d, p) => ({
      limit: p.limit,
      units: UNIT_LABELS[p.units],
      resorts: withRefs(d.topSnow.resorts),
    }),
  }),
  route({
    freshness: 'data',
    path: '/api/conditions/open-now',
    summary: 'Operating resorts with at least this share of trails open.',
    response: R.OpenNow,
    params: OpenNowParams,
    operation: RestOpenNowDocument,
    shape: (d, p) => ({
      minOpenTrailsPct: d.openNow.minOpenTrailsPct,
      count: d.openNow.count,
      units: UNIT_LABELS[p.units],
      resorts: withRefs(d.openNow.resorts),
    }),
  }),
  route({
    freshness: 'data',
    path: '/api/conditions/storm-watch',
    summary: 'Resorts forecast to get at least 20 cm at the summit in the next 48 h.',
    response: R.StormWatch,
    params: RankingParams,
    operation: RestStormWatchDocument,
    shape: (d, p) => ({
      limit: p.limit,
      threshold48h: d.stormWatch.threshold48h,
      units: UNIT_LABELS[p.units],
      resorts: withRefs(d.stormWatch.resorts),
    }),
  }),
  route({
    freshness: 'data',
    path: '/api/insights/snow',
    summary: 'Summit snowfall per resort over the last days, and network averages.',
    response: R.SnowInsights,
    params: InsightsParams,
    operation: RestSnowInsightsDocument,
    shape: (d, p) => ({
      days: d.snowInsights.days,
      from: d.snowInsights.from,
      to: d.snowInsights.to,
      units: UNIT_LABELS[p.units],
      network: d.snowInsights.network,
      resorts: withRefs(d.snowInsights.resorts),
    }),
  }),
];
