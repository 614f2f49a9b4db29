import { builder, byLimit } from '../builder.js';
import { haversineMiles, KM_PER_MILE, roundMiles } from '../../domain/geo.js';
import { argsOf } from '../../validation/args.js';
import { ZIP_BOUNDS } from '../../validation/params.js';
import { CitiesParams, LOOKUP_BOUNDS, ResortsNearParams, ZipCodesParams, ZipDistanceParams, ZipsNearParams } from '../../validation/lookup-params.js';
import type { CityCount, ZipRecord } from '../../data/repositories/zips.js';
import { loadZipAs } from './zip.js';
import { NearbyZipRef, ZipRef } from './refs.js';
import { NearbyResortRef } from './resort.js';

/** Lookups frontends ask for beyond the two documents: batches, positions, autocomplete. */

const CityMatchRef = builder.objectRef<CityCount>('CityMatch').implement({
  description: 'A city name in one state, for autocomplete.',
  fields: (t) => ({
    city: t.exposeString('city', { description: 'As the data spells it.' }),
    stateCode: t.exposeString('stateCode'),
    zipCount: t.exposeInt('zipCount', { description: 'ZIP codes with this city name in this state.' }),
  }),
});

const ZipDistanceRef = builder.objectRef<{ from: ZipRecord; to: ZipRecord; miles: number }>('ZipDistance').implement({
  description: 'Two ZIP codes and the great-circle distance between their centroids (haversine, R = 3958.8 mi, as nearby searches measure).',
  fields: (t) => ({
    from: t.expose('from', { type: ZipRef }),
    to: t.expose('to', { type: ZipRef }),
    distanceMiles: t.float({ description: 'Miles, 0.01 precision.', resolve: (d) => roundMiles(d.miles) }),
    distanceKm: t.float({ description: 'Kilometres, 0.01 precision.', resolve: (d) => Math.round(d.miles * KM_PER_MILE * 100) / 100 }),
  }),
});

builder.queryFields((t) => {
  /** The position a reverse lookup starts from (its bounds are the zod schema's). */
  const position = () => ({
    lat: t.arg.float({ required: true, description: 'Latitude of the point, degrees, -90 to 90.' }),
    lng: t.arg.float({ required: true, description: 'Longitude of the point, degrees, -180 to 180.' }),
  });
  return {
    zipDistance: t.field({
      type: ZipDistanceRef,
      nullable: true,
      description: 'The distance between two ZIP codes. A malformed code is BAD_USER_INPUT, an unknown one NOT_FOUND, each naming `from` or `to`.',
      args: t.validate(
        { from: t.arg.string({ required: true, description: 'Exactly 5 digits.' }), to: t.arg.string({ required: true, description: 'Exactly 5 digits.' }) },
        argsOf(ZipDistanceParams),
      ),
      resolve: async (_root, { from, to }, ctx) => {
        const [a, b] = await Promise.all([loadZipAs(ctx, from, 'from'), loadZipAs(ctx, to, 'to')]);
        return { from: a, to: b, miles: haversineMiles(a.lat, a.lng, b.lat, b.lng) };
      },
    }),
    zips: t.field({
      type: [ZipRef],
      nullable: { list: false, items: true },
      description: `Up to ${LOOKUP_BOUNDS.zipCodes.max} ZIP codes at once, in the order asked; a code that does not exist is null here (GET /api/zips lists such codes apart, as notFound).`,
      // Every copy is resolved and answered: each counts.
      complexity: (args) => ({ field: 1, multiplier: Array.isArray(args.codes) ? args.codes.length : 1 }),
      args: t.validate(
        { codes: t.arg.stringList({ required: true, description: `1–${LOOKUP_BOUNDS.zipCodes.max} codes of exactly 5 digits (a copy counts once).` }) },
        argsOf(ZipCodesParams),
      ),
      resolve: async (_root, { codes }, ctx) => {
        return ctx.loaders.zipByCode.loadMany(codes).then((found) => found.map((z) => (z instanceof Error ? null : z)));
      },
    }),
    zipsNear: t.field({
      type: [NearbyZipRef],
      description: `ZIP codes around a position, nearest first (reverse lookup). radiusMiles > 0 and <= ${ZIP_BOUNDS.radiusMiles.max} (default ${ZIP_BOUNDS.radiusMiles.default}); limit 1–${ZIP_BOUNDS.nearbyLimit.max} (default ${ZIP_BOUNDS.nearbyLimit.default}).`,
      complexity: byLimit(ZIP_BOUNDS.nearbyLimit.default),
      args: t.validate(
        {
          ...position(),
          radiusMiles: t.arg.float({
            description: `Search radius in miles, > 0 and <= ${ZIP_BOUNDS.radiusMiles.max}; default ${ZIP_BOUNDS.radiusMiles.default}.`,
            defaultValue: ZIP_BOUNDS.radiusMiles.default,
          }),
          limit: t.arg.int({
            description: `Most results to return, 1–${ZIP_BOUNDS.nearbyLimit.max}; default ${ZIP_BOUNDS.nearbyLimit.default}.`,
            defaultValue: ZIP_BOUNDS.nearbyLimit.default,
          }),
        },
        argsOf(ZipsNearParams),
      ),
      resolve: (_root, { lat, lng, radiusMiles, limit }, ctx) => ctx.zipIndex.get().nearby(lat, lng, radiusMiles, limit),
    }),
    resortsNear: t.field({
      type: [NearbyResortRef],
      description: `Ski resorts around any position, nearest first. radiusKm > 0 and <= ${LOOKUP_BOUNDS.resortsNearRadiusKm.max} (default ${LOOKUP_BOUNDS.resortsNearRadiusKm.default}); limit 1–${LOOKUP_BOUNDS.resortsNearLimit.max} (default ${LOOKUP_BOUNDS.resortsNearLimit.default}).`,
      complexity: byLimit(LOOKUP_BOUNDS.resortsNearLimit.default),
      args: t.validate(
        {
          ...position(),
          radiusKm: t.arg.float({ defaultValue: LOOKUP_BOUNDS.resortsNearRadiusKm.default }),
          limit: t.arg.int({ defaultValue: LOOKUP_BOUNDS.resortsNearLimit.default }),
        },
        argsOf(ResortsNearParams),
      ),
      resolve: (_root, { lat, lng, radiusKm, limit }, ctx) => {
        return ctx.resortIndex
          .get()
          .nearby(lat, lng, radiusKm / KM_PER_MILE, limit)
          .map(({ item, distanceMiles }) => ({ resort: item, distanceMiles }));
      },
    }),
    cities: t.field({
      type: [CityMatchRef],
      description:
        `Cities whose name starts with a prefix, for autocomplete: most ZIP codes first. Matching forgives case, accents, punctuation and ` +
        `the usual abbreviations (St./Saint, Ste/Sainte, Ft/Fort, Mt/Mount, Pt/Point). limit 1–${LOOKUP_BOUNDS.citiesLimit.max} (default ${LOOKUP_BOUNDS.citiesLimit.default}).`,
      complexity: byLimit(LOOKUP_BOUNDS.citiesLimit.default),
      args: t.validate(
        {
          prefix: t.arg.string({ required: true, description: `1–${ZIP_BOUNDS.cityMaxLength} characters, at least one letter or digit.` }),
          state: t.arg.string({ description: 'Two-letter state code, any case.' }),
          limit: t.arg.int({ defaultValue: LOOKUP_BOUNDS.citiesLimit.default }),
        },
        argsOf(CitiesParams),
      ),
      resolve: (_root, { prefix, state, limit }, ctx) => {
        return ctx.repos.zips.citiesByPrefix(prefix, state ?? null, limit);
      },
    }),
  };
});
