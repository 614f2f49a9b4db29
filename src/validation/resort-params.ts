import { z } from 'zod';
import { CONTINENT_NAMES } from '../domain/countries.js';
import { integer, listOf, numeric, offset, searchText, trimSpaces } from './params.js';
import { UNIT_SYSTEMS, UNITS_DESCRIPTION, type Units } from '../domain/units.js';

/** Every parameter of the resort paths and their GraphQL arguments, declared once. */

export const RESORT_BOUNDS = {
  listLimit: { default: 20, max: 200 },
  rankingLimit: { default: 10, max: 50 },
  minOpenTrailsPct: { default: 50 },
  insightsDays: { default: 7, max: 60 },
  nearbyResortsRadius: { default: 150, max: 500 },
  nearbyResortsLimit: { default: 10, max: 50 },
  textMax: 100,
  liveResortIds: { max: 50 },
} as const;

export const resortId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,79}$/, 'a resort id (letters, digits and hyphens, at most 80)')
  .transform((s) => s.toLowerCase());

/**
 * `metric` (default) or `imperial` as the README writes them, or `METRIC` / `IMPERIAL` as GraphQL's
 * enum does: exactly these four, which /openapi.json lists as its enum.
 */
export const units = z
  .enum([...UNIT_SYSTEMS.map((u) => u.toLowerCase() as Lowercase<Units>), ...UNIT_SYSTEMS], { error: 'metric or imperial (or METRIC, IMPERIAL)' })
  .default('metric')
  .transform((s) => s.toUpperCase() as Units)
  // For a path whose operation has no units argument (a resort's lifts): /openapi.json reads it here.
  .describe(UNITS_DESCRIPTION);

const text = searchText(RESORT_BOUNDS.textMax);

const continentByKey = new Map(CONTINENT_NAMES.map((c) => [c.toLowerCase(), c]));
const continent = z
  .string()
  .transform((s) => continentByKey.get(trimSpaces(s).toLowerCase().replace(/[-_]+/g, ' ')) ?? s)
  .pipe(z.enum(CONTINENT_NAMES as [string, ...string[]], { error: `one of ${CONTINENT_NAMES.join(', ')}` }));

export const ResortParams = z.object({ id: resortId, units });

export const ResortListParams = z.object({
  q: text.optional(),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'a 2-letter ISO 3166-1 country code')
    .transform((s) => s.toUpperCase())
    .optional(),
  region: text.optional(),
  continent: continent.optional(),
  limit: integer(1, RESORT_BOUNDS.listLimit.max).default(RESORT_BOUNDS.listLimit.default),
  offset,
  units,
});

export const CompareParams = z.object({ id: resortId, with: resortId, units });

export const RankingParams = z.object({
  limit: integer(1, RESORT_BOUNDS.rankingLimit.max).default(RESORT_BOUNDS.rankingLimit.default),
  units,
});

export const OpenNowParams = z.object({
  minOpenTrailsPct: numeric(z.number().min(0).max(100)).default(RESORT_BOUNDS.minOpenTrailsPct.default),
  units,
});

export const InsightsParams = z.object({
  days: integer(1, RESORT_BOUNDS.insightsDays.max).default(RESORT_BOUNDS.insightsDays.default),
  units,
});

export const UnitsOnly = z.object({ units });

export const NearbyResortsParams = z.object({
  radiusMiles: numeric(z.number().gt(0).max(RESORT_BOUNDS.nearbyResortsRadius.max)).default(RESORT_BOUNDS.nearbyResortsRadius.default),
  limit: integer(1, RESORT_BOUNDS.nearbyResortsLimit.max).default(RESORT_BOUNDS.nearbyResortsLimit.default),
});

export const HISTORY_BOUNDS = {
  days: { min: 7, max: 90, default: 30 },
  years: { min: 1, max: 10, default: 5 },
  radiusKm: { min: 1, max: 40, default: 12 },
} as const;

export const HistoryParams = z.object({
  days: integer(HISTORY_BOUNDS.days.min, HISTORY_BOUNDS.days.max).default(HISTORY_BOUNDS.days.default),
  years: integer(HISTORY_BOUNDS.years.min, HISTORY_BOUNDS.years.max).default(HISTORY_BOUNDS.years.default),
  radiusKm: numeric(z.number().min(HISTORY_BOUNDS.radiusKm.min).max(HISTORY_BOUNDS.radiusKm.max)).default(HISTORY_BOUNDS.radiusKm.default),
  units,
});

export const ResortHistoryParams = HistoryParams.extend({ id: resortId });

/** A live conditions subscription: the resorts (each once, whatever its case), and the units of their reports. */
export const ConditionsChangedParams = z.object({
  resortIds: listOf(resortId, RESORT_BOUNDS.liveResortIds.max).transform((ids) => [...new Set(ids)]),
  units,
});
