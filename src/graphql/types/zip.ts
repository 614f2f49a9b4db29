import { builder, byLimit } from '../builder.js';
import type { ZipRecord } from '../../data/repositories/zips.js';
import type { NearbyZip } from '../../domain/zip-spatial-index.js';
import { NotFoundError } from '../../lib/errors.js';
import { argsOf } from '../../validation/args.js';
import { NearbyOptions, NearbyParams, ZIP_BOUNDS, ZipParams } from '../../validation/params.js';
import type { GraphQLContext } from '../context.js';
import { NearbyZipRef, StateRef, ZipRef } from './refs.js';

export { NearbyZipRef, ZipRef } from './refs.js';
const NearbyCenterRef = builder.objectRef<{ zip: string; lat: number; lng: number }>('NearbyCenter');
const NearbyResultRef = builder.objectRef<{
  center: { zip: string; lat: number; lng: number };
  radiusMiles: number;
  results: NearbyZip[];
}>('NearbyZips');

const radiusDoc = `Search radius in miles, > 0 and <= ${ZIP_BOUNDS.radiusMiles.max}; default ${ZIP_BOUNDS.radiusMiles.default}.`;
const limitDoc = `Most results to return, 1–${ZIP_BOUNDS.nearbyLimit.max}; default ${ZIP_BOUNDS.nearbyLimit.default}.`;

/** Loads a ZIP or throws NOT_FOUND: REST answers 404 and GraphQL carries the code. */
export function loadZip(ctx: GraphQLContext, zip: string): ZipRecord | Promise<ZipRecord> {
  return loadZipAs(ctx, zip, 'zip');
}

/**
 * The same, the error naming the argument the code came in (`from`, `to`). Synchronous once the
 * table is in memory: a lookup then runs and answers in the turn its request arrived in.
 */
export function loadZipAs(ctx: GraphQLContext, zip: string, argument: string): ZipRecord | Promise<ZipRecord> {
  const now = ctx.loaders.zipInMemory(zip);
  if (now !== undefined) return foundOr404(now, zip, argument);
  return ctx.loaders.zipByCode.load(zip).then((record) => foundOr404(record, zip, argument));
}

function foundOr404(record: ZipRecord | null, zip: string, argument: string): ZipRecord {
  if (!record) throw new NotFoundError('ZIP code', argument, zip);
  return record;
}

function nearbyOf(ctx: GraphQLContext, center: Pick<ZipRecord, 'zip' | 'lat' | 'lng'>, radiusMiles: number, limit: number): NearbyZip[] {
  return ctx.zipIndex.get().nearby(center.lat, center.lng, radiusMiles, limit, center.zip);
}

ZipRef.implement({
  description: 'A US ZIP code (GeoNames postal code data, 50 states and DC).',
  fields: (t) => ({
    id: t.id({ description: 'The ZIP code: its identity for client caches.', resolve: (z) => z.zip }),
    zip: t.exposeString('zip', { description: 'Five-digit ZIP code.' }),
    city: t.exposeString('city'),
    stateCode: t.exposeString('stateCode', { description: 'Two-letter USPS state code.' }),
    stateName: t.exposeString('stateName'),
    county: t.exposeString('county', { description: 'County name as GeoNames gives it (without "County").' }),
    countyFips: t.exposeString('countyFips', { description: 'Five-digit state + county FIPS code, e.g. 06037.' }),
    lat: t.exposeFloat('lat', { description: 'Latitude of the ZIP centroid, degrees.' }),
    lng: t.exposeFloat('lng', { description: 'Longitude of the ZIP centroid, degrees.' }),
    timezone: t.exposeString('timezone', { description: 'IANA time zone from the centroid (e.g. America/Phoenix), beyond the documented record.' }),
    lastUpdated: t.expose('lastUpdated', { type: 'DateTime', description: 'When the ZIP dataset was published (its date, at midnight UTC).' }),
    state: t.field({
      type: StateRef,
      resolve: (zip, _args, ctx) => ctx.loaders.state(zip.stateCode)!,
    }),
    nearby: t.field({
      type: [NearbyZipRef],
      nullable: true,
      description: 'Other ZIP codes within the radius, nearest first. The ZIP itself is not included.',
      complexity: byLimit(ZIP_BOUNDS.nearbyLimit.default),
      args: t.validate(
        {
          radiusMiles: t.arg.float({ description: radiusDoc, defaultValue: ZIP_BOUNDS.radiusMiles.default }),
          limit: t.arg.int({ description: limitDoc, defaultValue: ZIP_BOUNDS.nearbyLimit.default }),
        },
        argsOf(NearbyOptions),
      ),
      resolve: (zip, { radiusMiles, limit }, ctx) => nearbyOf(ctx, zip, radiusMiles, limit),
    }),
  }),
});

NearbyZipRef.implement({
  description: 'A ZIP code near another, with its haversine distance (R = 3958.8 mi).',
  fields: (t) => ({
    zip: t.exposeString('zip'),
    city: t.exposeString('city'),
    stateCode: t.exposeString('stateCode'),
    county: t.exposeString('county'),
    lat: t.exposeFloat('lat'),
    lng: t.exposeFloat('lng'),
    distanceMiles: t.exposeFloat('distanceMiles', { description: 'Miles from the center, rounded to 0.01.' }),
    details: t.field({
      type: ZipRef,
      description: 'The full ZIP record.',
      resolve: (n, _args, ctx) => loadZip(ctx, n.zip),
    }),
  }),
});

NearbyCenterRef.implement({
  fields: (t) => ({ zip: t.exposeString('zip'), lat: t.exposeFloat('lat'), lng: t.exposeFloat('lng') }),
});

NearbyResultRef.implement({
  fields: (t) => ({
    center: t.expose('center', { type: NearbyCenterRef }),
    radiusMiles: t.exposeFloat('radiusMiles'),
    // Weighed by the limit on Query.nearbyZips.
    results: t.expose('results', { type: [NearbyZipRef], complexity: { field: 1, multiplier: 1 } }),
  }),
});

builder.queryFields((t) => ({
  zip: t.field({
    type: ZipRef,
    nullable: true,
    description: 'One ZIP code. An unknown ZIP is a NOT_FOUND error; a malformed one BAD_USER_INPUT.',
    args: t.validate({ zip: t.arg.string({ required: true, description: 'Exactly 5 digits.' }) }, argsOf(ZipParams)),
    resolve: (_root, { zip }, ctx) => loadZip(ctx, zip),
  }),
  nearbyZips: t.field({
    nullable: true,
    type: NearbyResultRef,
    description: 'ZIP codes within a radius of a ZIP, nearest first, the center ZIP itself excluded.',
    complexity: byLimit(ZIP_BOUNDS.nearbyLimit.default),
    args: t.validate(
      {
        zip: t.arg.string({ required: true, description: 'Exactly 5 digits.' }),
        radiusMiles: t.arg.float({ description: radiusDoc, defaultValue: ZIP_BOUNDS.radiusMiles.default }),
        limit: t.arg.int({ description: limitDoc, defaultValue: ZIP_BOUNDS.nearbyLimit.default }),
      },
      argsOf(NearbyParams),
    ),
    resolve: (_root, { zip, radiusMiles, limit }, ctx) => {
      // The center comes from the spatial index, which holds every ZIP's centroid: no SQL.
      const index = ctx.zipIndex.get();
      const center = index.point(zip);
      if (!center) throw new NotFoundError('ZIP code', 'zip', zip);
      return {
        center: { zip: center.zip, lat: center.lat, lng: center.lng },
        radiusMiles,
        results: index.nearby(center.lat, center.lng, radiusMiles, limit, center.zip),
      };
    },
  }),
}));
