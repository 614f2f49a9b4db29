import { z } from 'zod';
import { cityKey } from '../domain/city-key.js';
import { integer, listOf, numeric, plainText, stateCode, ZIP_BOUNDS, zipCode } from './params.js';

/** The lookups beyond the two documents (GraphQL first): batches, reverse lookups, autocomplete. */

export const LOOKUP_BOUNDS = {
  zipCodes: { max: 100 },
  resortsNearRadiusKm: { default: 100, max: 800 },
  resortsNearLimit: { default: 10, max: 50 },
  citiesLimit: { default: 10, max: 50 },
} as const;

const latitude = numeric(z.number().min(-90).max(90));
const longitude = numeric(z.number().min(-180).max(180));

export const ZipCodesParams = z.object({
  codes: listOf(zipCode, LOOKUP_BOUNDS.zipCodes.max),
});

/** The distance between two ZIP codes: `from` and `to`, each exactly 5 digits. */
export const ZipDistanceParams = z.object({ from: zipCode, to: zipCode });

export const ZipsNearParams = z.object({
  lat: latitude,
  lng: longitude,
  radiusMiles: numeric(z.number().gt(0).max(ZIP_BOUNDS.radiusMiles.max)).default(ZIP_BOUNDS.radiusMiles.default),
  limit: integer(1, ZIP_BOUNDS.nearbyLimit.max).default(ZIP_BOUNDS.nearbyLimit.default),
});

export const ResortsNearParams = z.object({
  lat: latitude,
  lng: longitude,
  radiusKm: numeric(z.number().gt(0).max(LOOKUP_BOUNDS.resortsNearRadiusKm.max)).default(LOOKUP_BOUNDS.resortsNearRadiusKm.default),
  limit: integer(1, LOOKUP_BOUNDS.resortsNearLimit.max).default(LOOKUP_BOUNDS.resortsNearLimit.default),
});

export const CitiesParams = z.object({
  prefix: plainText()
    .max(ZIP_BOUNDS.cityMaxLength)
    .refine((p) => cityKey(p).length > 0, { error: 'a letter or digit' }),
  state: stateCode.optional(),
  limit: integer(1, LOOKUP_BOUNDS.citiesLimit.max).default(LOOKUP_BOUNDS.citiesLimit.default),
});
