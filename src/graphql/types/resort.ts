import type { z } from 'zod';
import { builder, byLimit } from '../builder.js';
import { sliced } from '../cost-directives.js';
import type { GraphQLContext } from '../context.js';
import type { ResortSnapshot } from '../../data/snapshots/snapshot.js';
import type { ResortRecord } from '../../data/repositories/resorts.js';
import { NotFoundError } from '../../lib/errors.js';
import { RESORT_FIELD_NAMES, RESORT_FIELDS } from '../../domain/resort-fields.js';
import { haversineMiles, KM_PER_MILE } from '../../domain/geo.js';
import { toUnits, UNIT_LABELS } from '../../domain/units.js';
import { argsOf, dropNulls } from '../../validation/args.js';
import { NearbyOptions, ZIP_BOUNDS } from '../../validation/params.js';
import { CompareParams, NearbyResortsParams, RESORT_BOUNDS, ResortListParams, ResortParams, UnitsOnly } from '../../validation/resort-params.js';
import { conditionsView, liftSummaryView, trailSummaryView, weatherView, forecastView } from '../../data/snapshots/views.js';
import { ConditionsRef, ForecastDayRef, WeatherRef } from './conditions.js';
import { LiftRef, LiftSummaryRef, TrailRef, TrailSummaryRef } from './inventory.js';
import { UnitLabelsRef, unitsArg } from './units.js';
import { NearbyZipRef, ZipRef } from './refs.js';
import type { NearbyZip } from '../../domain/zip-spatial-index.js';

export const ResortRef = builder.objectRef<ResortRecord>('Resort');

export async function loadResort(ctx: GraphQLContext, id: string): Promise<ResortRecord> {
  const resort = await ctx.loaders.resortById.load(id);
  if (!resort) throw new NotFoundError('Resort', 'id', id);
  return resort;
}

const snapshot = (ctx: GraphQLContext, r: ResortRecord): Promise<ResortSnapshot<ResortRecord>> => ctx.loaders.snapshotByResort.load(r.id);

const GeoPointRef = builder.objectRef<{ lat: number; lng: number }>('GeoPoint').implement({
  fields: (t) => ({ lat: t.exposeFloat('lat'), lng: t.exposeFloat('lng') }),
});

const ElevationRef = builder.objectRef<{ base: number; summit: number; vertical: number; unit: string }>('Elevation').implement({
  fields: (t) => ({
    base: t.exposeInt('base'),
    summit: t.exposeInt('summit'),
    vertical: t.exposeInt('vertical'),
    unit: t.exposeString('unit', { description: 'm or ft.' }),
  }),
});

export const NearbyResortRef = builder.objectRef<{ resort: ResortRecord; distanceMiles: number }>('NearbyResort').implement({
  fields: (t) => ({
    resort: t.expose('resort', { type: ResortRef }),
    distanceMiles: t.exposeFloat('distanceMiles', { description: 'Haversine miles, 0.01 precision.' }),
    distanceKm: t.float({ description: 'The same distance in km, 0.01 precision.', resolve: (n) => Math.round(n.distanceMiles * KM_PER_MILE * 100) / 100 }),
  }),
});

ResortRef.implement({
  description: 'A ski resort from the curated catalogue, with today’s conditions from the configured provider.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Stable lowercase slug, e.g. vail, zermatt.' }),
    name: t.exposeString('name'),
    countryCode: t.exposeString('countryCode', { description: 'ISO 3166-1 alpha-2.' }),
    countryName: t.exposeString('countryName'),
    region: t.exposeString('region', { description: 'State, province or region.' }),
    continent: t.exposeString('continent'),
    location: t.field({ type: GeoPointRef, resolve: (r) => ({ lat: r.lat, lng: r.lng }) }),
    timezone: t.exposeString('timezone', {
      description:
        'IANA time zone, from the coordinates (e.g. America/Denver). Dates, the season, forecasts and the history window are in this zone’s local days.',
    }),
    ...Object.fromEntries(
      RESORT_FIELD_NAMES.map((name) => {
        const { type, description } = RESORT_FIELDS[name] as { type: 'String' | 'Int' | 'Float'; description: string };
        return [name, t.field({ type: type as 'String', nullable: true, description, resolve: (r) => (r[name] ?? null) as string | null })];
      }),
    ),
    liftCount: t.exposeInt('liftCount'),
    trailCount: t.exposeInt('trailCount'),
    inventorySource: t.exposeString('inventorySource', { description: '"generated": trail and lift names and grades are generated, not real.' }),
    elevation: t.field({
      type: ElevationRef,
      args: t.validate({ units: t.arg(unitsArg) }, argsOf(UnitsOnly)),
      resolve: (r, { units }) => {
        return {
          base: toUnits.elevation(r.baseElevation, units),
          summit: toUnits.elevation(r.summitElevation, units),
          vertical: toUnits.elevation(r.summitElevation - r.baseElevation, units),
          unit: UNIT_LABELS[units].elevation,
        };
      },
    }),
    conditions: t.field({
      type: ConditionsRef,
      args: t.validate({ units: t.arg(unitsArg) }, argsOf(UnitsOnly)),
      resolve: async (r, { units }, ctx) => conditionsView(await snapshot(ctx, r), units),
    }),
    weather: t.field({
      type: WeatherRef,
      args: t.validate({ units: t.arg(unitsArg) }, argsOf(UnitsOnly)),
      resolve: async (r, { units }, ctx) => weatherView(await snapshot(ctx, r), units),
    }),
    forecast: t.field({
      type: [ForecastDayRef],
      complexity: { field: 1, multiplier: 7 },
      description: 'Daily forecast, today and the next six days.',
      args: t.validate({ units: t.arg(unitsArg) }, argsOf(UnitsOnly)),
      resolve: async (r, { units }, ctx) => forecastView(await snapshot(ctx, r), units),
    }),
    trails: t.field({
      type: [TrailRef],
      // At least the most trails any resort has (test/unit/list-sizes.test.ts).
      complexity: { field: 1, multiplier: 330 },
      args: t.validate(
        {
          units: t.arg({
            ...unitsArg,
            description: `${unitsArg.description} For trail lengths read without their own \`units\`.`,
            deprecationReason:
              "Use Trail.length(units:): a value that depends on its parent's argument is cached wrongly by normalized client caches (one Trail, two units).",
          }),
        },
        argsOf(UnitsOnly),
      ),
      resolve: async (r, { units }, ctx) => {
        return (await snapshot(ctx, r)).trails.all().map((trail) => ({ ...trail, units }));
      },
    }),
    trailSummary: t.field({ type: TrailSummaryRef, resolve: async (r, _a, ctx) => trailSummaryView(await snapshot(ctx, r)) }),
    // At least the most lifts any resort has (test/unit/list-sizes.test.ts).
    lifts: t.field({ type: [LiftRef], complexity: { field: 1, multiplier: 80 }, resolve: async (r, _a, ctx) => (await snapshot(ctx, r)).lifts.all() }),
    liftSummary: t.field({ type: LiftSummaryRef, resolve: async (r, _a, ctx) => liftSummaryView(await snapshot(ctx, r)) }),
    nearbyZips: t.field({
      type: [NearbyZipRef],
      nullable: true,
      description: `US ZIP codes near the resort, nearest first (radiusMiles > 0 and <= ${ZIP_BOUNDS.radiusMiles.max}, default ${ZIP_BOUNDS.radiusMiles.default}; limit 1–${ZIP_BOUNDS.nearbyLimit.max}, default ${ZIP_BOUNDS.nearbyLimit.default}). Empty outside the US.`,
      args: t.validate(
        { radiusMiles: t.arg.float({ defaultValue: ZIP_BOUNDS.radiusMiles.default }), limit: t.arg.int({ defaultValue: ZIP_BOUNDS.nearbyLimit.default }) },
        argsOf(NearbyOptions),
      ),
      complexity: byLimit(ZIP_BOUNDS.nearbyLimit.default),
      resolve: (r, { radiusMiles, limit }, ctx): NearbyZip[] => {
        return ctx.zipIndex.get().nearby(r.lat, r.lng, radiusMiles, limit);
      },
    }),
  }),
});

builder.objectField(ZipRef, 'nearbyResorts', (t) =>
  t.field({
    type: [NearbyResortRef],
    nullable: true,
    description: `Ski resorts near this ZIP code, nearest first (radiusMiles > 0 and <= ${RESORT_BOUNDS.nearbyResortsRadius.max}, default ${RESORT_BOUNDS.nearbyResortsRadius.default}; limit 1–${RESORT_BOUNDS.nearbyResortsLimit.max}, default ${RESORT_BOUNDS.nearbyResortsLimit.default}).`,
    args: t.validate(
      {
        radiusMiles: t.arg.float({ defaultValue: RESORT_BOUNDS.nearbyResortsRadius.default }),
        limit: t.arg.int({ defaultValue: RESORT_BOUNDS.nearbyResortsLimit.default }),
      },
      argsOf(NearbyResortsParams),
    ),
    complexity: byLimit(RESORT_BOUNDS.nearbyResortsLimit.default),
    resolve: (zip, { radiusMiles, limit }, ctx) => {
      return ctx.resortIndex
        .get()
        .nearby(zip.lat, zip.lng, radiusMiles, limit)
        .map(({ item, distanceMiles }) => ({ resort: item, distanceMiles }));
    },
  }),
);

const ResortPageRef = builder.objectRef<{ total: number; limit: number; offset: number; resorts: ResortRecord[] }>('ResortPage').implement({
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Resorts matching the filter, all pages.' }),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
    // Weighed by paging.limit on Query.resorts.
    resorts: t.expose('resorts', { type: [ResortRef], complexity: { field: 1, multiplier: 1 } }),
  }),
});

const ResortFilterInput = builder.inputType('ResortFilter', {
  fields: (t) => ({
    q: t.string({ description: `Name (or id) contains this, any case; 1–${RESORT_BOUNDS.textMax} characters.` }),
    country: t.string({ description: 'ISO 3166-1 alpha-2 country code, any case.' }),
    region: t.string({ description: 'State, province or region, exact name, any case.' }),
    continent: t.string({ description: 'Africa, Antarctica, Asia, Europe, North America, Oceania or South America (any case; hyphens for spaces).' }),
  }),
});

const PagingInput = builder.inputType('Paging', {
  fields: (t) => ({
    limit: t.int({ description: `Most resorts on a page, 1–${RESORT_BOUNDS.listLimit.max}.`, defaultValue: RESORT_BOUNDS.listLimit.default }),
    offset: t.int({ description: 'Resorts to skip before the page starts, >= 0.', defaultValue: 0 }),
  }),
});

interface Comparison {
  a: ResortSnapshot<ResortRecord>;
  b: ResortSnapshot<ResortRecord>;
  units: 'METRIC' | 'IMPERIAL';
}

const DifferencesRef = builder.objectRef<Comparison>('ComparisonDifferences').implement({
  description: 'First resort minus second, in the units asked for.',
  fields: (t) => {
    const diff = (pick: (c: ReturnType<typeof conditionsView>) => number) => (c: Comparison) =>
      Math.round((pick(conditionsView(c.a, c.units)) - pick(conditionsView(c.b, c.units))) * 10) / 10;
    const elev = (pick: (r: ResortRecord) => number) => (c: Comparison) =>
      toUnits.elevation(pick(c.a.resort), c.units) - toUnits.elevation(pick(c.b.resort), c.units);
    return {
      baseElevation: t.int({ resolve: elev((r) => r.baseElevation) }),
      summitElevation: t.int({ resolve: elev((r) => r.summitElevation) }),
      vertical: t.int({ resolve: elev((r) => r.summitElevation - r.baseElevation) }),
      liftCount: t.int({ resolve: (c) => c.a.resort.liftCount - c.b.resort.liftCount }),
      trailCount: t.int({ resolve: (c) => c.a.resort.trailCount - c.b.resort.trailCount }),
      snowDepthBase: t.float({ resolve: diff((x) => x.snowDepthBase) }),
      snowDepthMid: t.float({ resolve: diff((x) => x.snowDepthMid) }),
      snowDepthSummit: t.float({ resolve: diff((x) => x.snowDepthSummit) }),
      newSnow24h: t.float({ resolve: diff((x) => x.newSnow24h) }),
      newSnow48h: t.float({ resolve: diff((x) => x.newSnow48h) }),
      newSnow72h: t.float({ resolve: diff((x) => x.newSnow72h) }),
      seasonSnowfall: t.float({ resolve: diff((x) => x.seasonSnowfall) }),
      openTrails: t.int({ resolve: diff((x) => x.openTrails) }),
      openLifts: t.int({ resolve: diff((x) => x.openLifts) }),
      temperature: t.float({ resolve: diff((x) => x.temperature) }),
    };
  },
});

const ComparisonRef = builder.objectRef<Comparison>('Comparison').implement({
  description: 'Two resorts side by side.',
  fields: (t) => ({
    resort: t.field({ type: ResortRef, resolve: (c) => c.a.resort }),
    with: t.field({ type: ResortRef, resolve: (c) => c.b.resort }),
    units: t.field({ type: UnitLabelsRef, resolve: (c) => UNIT_LABELS[c.units] }),
    distanceKm: t.float({
      description: 'Great-circle distance between the two, km.',
      resolve: (c) => Math.round(haversineMiles(c.a.resort.lat, c.a.resort.lng, c.b.resort.lat, c.b.resort.lng) * KM_PER_MILE * 10) / 10,
    }),
    differences: t.field({ type: DifferencesRef, resolve: (c) => c }),
  }),
});

builder.queryFields((t) => ({
  resort: t.field({
    type: ResortRef,
    nullable: true,
    description: 'One resort by id. An unknown id is a NOT_FOUND error.',
    args: t.validate(
      { id: t.arg.id({ required: true, description: "The resort's id (its slug, e.g. vail), any case." }) },
      argsOf(ResortParams, (a: { id: string | number }) => ({ id: String(a.id) })),
    ),
    resolve: (_root, { id }, ctx) => loadResort(ctx, id),
  }),
  resorts: t.field({
    nullable: true,
    type: ResortPageRef,
    description: 'Resorts matching a filter, by name, one page at a time.',
    args: t.validate(
      { filter: t.arg({ type: ResortFilterInput }), paging: t.arg({ type: PagingInput }) },
      argsOf(ResortListParams, (a: { filter?: Record<string, unknown> | null; paging?: Record<string, unknown> | null }) => ({
        ...dropNulls(a.filter ?? {}),
        ...dropNulls(a.paging ?? {}),
      })),
    ),
    // The cost analysis reads the arguments as validated (the page's limit, flattened).
    complexity: sliced(
      (args: Record<string, unknown>) => byLimit(RESORT_BOUNDS.listLimit.default)({ limit: (args as z.output<typeof ResortListParams>).limit }),
      ['paging.limit'],
    ),
    resolve: (_root, args, ctx) => {
      // The parsed parameters (Pothos types transformed arguments as nullable input fields).
      const p = args as z.output<typeof ResortListParams>;
      const { total, resorts } = ctx.repos.resorts.search(p, p.limit, p.offset);
      for (const r of resorts) ctx.loaders.resortById.prime(r.id, r);
      return { total, limit: p.limit, offset: p.offset, resorts };
    },
  }),
  compareResorts: t.field({
    nullable: true,
    type: ComparisonRef,
    description: 'Two resorts side by side with the differences (first minus second).',
    args: t.validate(
      {
        id: t.arg.id({ required: true, description: "The first resort's id." }),
        with: t.arg.id({ required: true, description: "The second resort's id (the differences are first minus second)." }),
        units: t.arg(unitsArg),
      },
      argsOf(CompareParams, (a: { id: string | number; with: string | number; units?: string | null }) => ({
        id: String(a.id),
        with: String(a.with),
        units: a.units ?? undefined,
      })),
    ),
    resolve: async (_root, p, ctx) => {
      const [a, b] = await Promise.all([
        loadResort(ctx, p.id),
        (async () => {
          const r = await ctx.loaders.resortById.load(p.with);
          if (!r) throw new NotFoundError('Resort', 'with', p.with);
          return r;
        })(),
      ]);
      const [sa, sb] = await Promise.all([snapshot(ctx, a), snapshot(ctx, b)]);
      return { a: sa, b: sb, units: p.units };
    },
  }),
}));
