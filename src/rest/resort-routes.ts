import { UNIT_LABELS } from '../domain/units.js';
import { CompareParams, InsightsParams, OpenNowParams, RankingParams, ResortHistoryParams, ResortListParams, ResortParams } from '../validation/resort-params.js';
import { route } from './route.js';

/** The documented resort paths: each one GraphQL operation, shaped into the documented body. */

const SUMMARY = `fragment Summary on Resort {
  id name countryCode countryName region continent location { lat lng }
  elevation(units: $units) { base summit vertical }
  conditions(units: $units) { source status surface snowDepthBase snowDepthSummit newSnow24h newSnow72h
    openTrails totalTrails openLifts totalLifts temperature }
}`;

const REF = 'id name countryCode region continent';

type Gql = Record<string, any>;

const resortRef = (r: Gql) => ({ id: r.id, name: r.name, country: r.countryCode, region: r.region, continent: r.continent });
/** Ranking entries name their resort briefly, with `country` as the code. */
const withRefs = (entries: Gql[]) => entries.map((e) => ({ ...e, resort: resortRef(e.resort) }));

/** Who and where a resort is, as every resort body starts. */
const identity = (r: Gql) => ({
  id: r.id,
  name: r.name,
  country: r.countryCode,
  countryName: r.countryName,
  region: r.region,
  continent: r.continent,
  location: r.location,
});

export function summary(r: Gql) {
  const { source, ...conditions } = r.conditions;
  return { ...identity(r), elevation: r.elevation, conditions, source };
}

const byKey = <T extends Gql>(items: T[], key: string, value: (x: T) => unknown) =>
  Object.fromEntries(items.map((x) => [x[key], value(x)]));

const trailSummary = (s: Gql) => ({
  total: s.total,
  open: s.open,
  groomed: s.groomed,
  byDifficulty: byKey(s.byDifficulty, 'difficulty', (x) => ({ total: x.total, open: x.open })),
  byStatus: byKey(s.byStatus, 'status', (x) => x.count),
});

const liftSummary = (s: Gql) => ({
  total: s.total,
  open: s.open,
  openCapacityPerHour: s.openCapacityPerHour,
  byType: byKey(s.byType, 'type', (x) => ({ total: x.total, open: x.open })),
  byStatus: byKey(s.byStatus, 'status', (x) => x.count),
});

const FORECAST_FIELDS = `date summary precipitationProbability precipitation snowLine windDirection
  base { elevation tempMin tempMax snowfall windSpeed windGust } summit { elevation tempMin tempMax snowfall windSpeed windGust }`;
const CURRENT_FIELDS = 'time summary temperature temperatureSummit windSpeed windGust windDirection snowfall24h precipitation24h';
const TRAIL_SUMMARY = 'total open groomed byDifficulty { difficulty total open } byStatus { status count }';
const LIFT_SUMMARY = 'total open openCapacityPerHour byType { type total open } byStatus { status count }';

const IdParams = ResortParams;
const MEASURES = 'snowfall precipitation snowDepth tempMin tempMax';

export const resortRoutes = [
  route({
    freshness: 'data',
    path: '/api/resorts',
    params: ResortListParams,
    operation: `query Resorts($q: String, $country: String, $region: String, $continent: String, $limit: Int, $offset: Int, $units: Units) {
      resorts(filter: { q: $q, country: $country, region: $region, continent: $continent }, paging: { limit: $limit, offset: $offset }) {
        total limit offset resorts { ...Summary } } }
      ${SUMMARY}`,
    shape: (d, p) => ({
      total: d.resorts.total,
      limit: d.resorts.limit,
      offset: d.resorts.offset,
      units: UNIT_LABELS[p.units],
      resorts: d.resorts.resorts.map(summary),
    }),
  }),
  route({
    freshness: 'data',
    path: '/api/resorts/:id',
    params: IdParams,
    operation: `query Resort($id: ID!, $units: Units) { resort(id: $id) {
      id name countryCode countryName region continent location { lat lng } website liftCount trailCount inventorySource
      elevation(units: $units) { base summit vertical }
      conditions(units: $units) { date source status statusReason seasonOpens seasonCloses snowDepthBase snowDepthSummit
        newSnow24h newSnow72h newSnow7d seasonSnowfall surface openTrails totalTrails openTrailsPct openLifts totalLifts
        temperature temperatureSummit windSpeed windGust summary }
      weather(units: $units) { current { ${CURRENT_FIELDS} } forecast { ${FORECAST_FIELDS} } }
      trailSummary { ${TRAIL_SUMMARY} } liftSummary { ${LIFT_SUMMARY} } } }`,
    shape: (d, p) => {
      const r = d.resort;
      const c = r.conditions;
      return {
        ...identity(r),
        website: r.website,
        elevation: r.elevation,
        units: UNIT_LABELS[p.units],
        source: c.source,
        inventorySource: r.inventorySource,
        date: c.date,
        operation: { status: c.status, reason: c.statusReason, seasonOpens: c.seasonOpens, seasonCloses: c.seasonCloses },
        snow: {
          depthBase: c.snowDepthBase,
          depthSummit: c.snowDepthSummit,
          newSnow24h: c.newSnow24h,
          newSnow72h: c.newSnow72h,
          newSnow7d: c.newSnow7d,
          seasonTotal: c.seasonSnowfall,
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
    params: IdParams,
    operation: `query ResortWeather($id: ID!, $units: Units) { resort(id: $id) { id name
      weather(units: $units) { source current { ${CURRENT_FIELDS} } forecast { ${FORECAST_FIELDS} } } } }`,
    shape: (d, p) => ({
      resortId: d.resort.id,
      name: d.resort.name,
      source: d.resort.weather.source,
      units: UNIT_LABELS[p.units],
      current: d.resort.weather.current,
      forecast: d.resort.weather.forecast,
    }),
  }),
  route({
    freshness: 'data',
    path: '/api/resorts/:id/trails',
    params: IdParams,
    operation: `query ResortTrails($id: ID!, $units: Units) { resort(id: $id) { id name inventorySource
      trailSummary { ${TRAIL_SUMMARY} } trails(units: $units) { id name difficulty rating length status grooming } } }`,
    shape: (d, p) => ({
      resortId: d.resort.id,
      name: d.resort.name,
      source: d.resort.inventorySource,
      units: UNIT_LABELS[p.units],
      summary: trailSummary(d.resort.trailSummary),
      trails: d.resort.trails,
    }),
  }),
  route({
    freshness: 'data',
    path: '/api/resorts/:id/lifts',
    params: IdParams,
    operation: `query ResortLifts($id: ID!) { resort(id: $id) { id name inventorySource
      liftSummary { ${LIFT_SUMMARY} } lifts { id name type seats capacityPerHour status source } } }`,
    variables: (p) => ({ id: p.id }),
    shape: (d) => ({
      resortId: d.resort.id,
      name: d.resort.name,
      // "liftie" where a live feed gave the lifts and their status, else the inventory's source.
      source: d.resort.lifts[0]?.source ?? d.resort.inventorySource,
      summary: liftSummary(d.resort.liftSummary),
      lifts: d.resort.lifts.map(({ source: _s, ...l }: Gql) => l),
    }),
  }),
  route({
    freshness: 'data',
    path: '/api/resorts/:id/compare',
    params: CompareParams,
    operation: `query Compare($id: ID!, $with: ID!, $units: Units) { compareResorts(id: $id, with: $with, units: $units) {
      resort { ...Summary } with { ...Summary } distanceKm
      differences { baseElevation summitElevation vertical liftCount trailCount snowDepthBase snowDepthSummit
        newSnow24h newSnow72h seasonSnowfall openTrails openLifts temperature } } }
      ${SUMMARY}`,
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
    params: ResortHistoryParams,
    operation: `query History($id: ID!, $days: Int, $years: Int, $radiusKm: Float, $units: Units) { resort(id: $id) { id name
      history(days: $days, years: $years, radiusKm: $radiusKm, units: $units) {
        provider parameters { days years radiusKm } from to points { lat lng }
        daily { date values { ${MEASURES} } baseline { ${MEASURES} } }
        current { ${MEASURES} } baseline { ${MEASURES} }
        deviation { ${['snowfall', 'precipitation', 'snowDepth', 'tempMin', 'tempMax'].map((m) => `${m} { absolute percent }`).join(' ')} } } } }`,
    shape: (d, p) => {
      const h = d.resort.history;
      return {
        resortId: d.resort.id,
        name: d.resort.name,
        provider: h.provider,
        parameters: h.parameters,
        units: UNIT_LABELS[p.units],
        window: { from: h.from, to: h.to },
        points: h.points,
        daily: h.daily.map((x: Gql) => ({ date: x.date, ...x.values, baseline: x.baseline })),
        summary: { current: h.current, baseline: h.baseline, deviation: h.deviation },
      };
    },
  }),
  route({
    freshness: 'data',
    path: '/api/conditions/top-snow',
    params: RankingParams,
    operation: `query TopSnow($limit: Int, $units: Units) { topSnow(limit: $limit, units: $units) {
      resorts { rank resort { ${REF} } newSnow24h newSnow72h snowDepthSummit surface } } }`,
    shape: (d, p) => ({
      limit: p.limit,
      units: UNIT_LABELS[p.units],
      resorts: withRefs(d.topSnow.resorts),
    }),
  }),
  route({
    freshness: 'data',
    path: '/api/conditions/open-now',
    params: OpenNowParams,
    operation: `query OpenNow($minOpenTrailsPct: Float, $units: Units) { openNow(minOpenTrailsPct: $minOpenTrailsPct, units: $units) {
      minOpenTrailsPct count resorts { rank resort { ${REF} } openTrailsPct openTrails totalTrails openLifts totalLifts snowDepthBase } } }`,
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
    params: RankingParams,
    operation: `query StormWatch($limit: Int, $units: Units) { stormWatch(limit: $limit, units: $units) {
      threshold48h resorts { rank resort { ${REF} } snowfall48h peakDate peakSnowfall } } }`,
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
    params: InsightsParams,
    operation: `query SnowInsights($days: Int, $units: Units) { snowInsights(days: $days, units: $units) {
      days from to network { resorts resortsWithSnow averageSnowfall averagePerDay maxSnowfall }
      resorts { resort { ${REF} } totalSnowfall averagePerDay maxDaySnowfall maxDayDate } } }`,
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

