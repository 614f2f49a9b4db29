import { builder, byLimit } from '../builder.js';
import { KM_PER_MILE } from '../../domain/geo.js';
import { argsOf } from '../../validation/args.js';
import { ZIP_BOUNDS } from '../../validation/params.js';
import { CitiesParams, LOOKUP_BOUNDS, ResortsNearParams, ZipCodesParams, ZipsNearParams } from '../../validation/lookup-params.js';
import type { CityCount } from '../../data/repositories/zips.js';
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

builder.queryFields((t) => {
  /** The position a reverse lookup starts from (its bounds are the zod schema's). */
  const position = () => ({
    lat: t.arg.float({ required: true, description: '-90 to 90.' }),
    lng: t.arg.float({ required: true, description: '-180 to 180.' }),
  });
  return {
    zips: t.field({
      type: [ZipRef],
      nullable: { list: false, items: true },
      description: `Up to ${LOOKUP_BOUNDS.zipCodes.max} ZIP codes at once, in the order asked; null for a code that does not exist.`,
      complexity: (args) => ({ field: 1, multiplier: Array.isArray(args.codes) ? Math.min(args.codes.length, 10_000) : 1 }),
      args: t.validate(
        { codes: t.arg.stringList({ required: true, description: `1–${LOOKUP_BOUNDS.zipCodes.max} codes of exactly 5 digits.` }) },
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
          radiusMiles: t.arg.float({ defaultValue: ZIP_BOUNDS.radiusMiles.default }),
          limit: t.arg.int({ defaultValue: ZIP_BOUNDS.nearbyLimit.default }),
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
