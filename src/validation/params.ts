import { z } from 'zod';
import { cityKey } from '../domain/city-key.js';

/**
 * Every parameter of every documented path and GraphQL argument, declared once. REST passes raw
 * query strings, GraphQL passes typed values; `numeric` accepts both so one schema serves the two.
 */

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
// Exactly the number as written: `Number(' 5\u3000')` is 5, so spaces around it would pass unseen.
const toNumber = (v: unknown) => (typeof v === 'string' && DECIMAL.test(v) ? Number(v) : v);

export const numeric = (schema: z.ZodNumber) => z.preprocess(toNumber, schema);

/**
 * An integer parameter within [min, max]. Integers name their bound in the type error too ("an
 * integer", not "a number"). The range is checked first and ends the checks: zod's own integer
 * check refuses an unsafe integer with a bound of its own, which said the same thing twice.
 */
export const integer = (min: number, max: number) =>
  numeric(z.number({ error: 'an integer' }).min(min, { abort: true }).max(max, { abort: true }).int({ error: 'an integer' }));

/** How many items a page skips: any safe integer, as /openapi.json says. */
export const offset = integer(0, Number.MAX_SAFE_INTEGER).default(0);

/** The largest GraphQL Int (32-bit signed). */
const GRAPHQL_INT_MAX = 2 ** 31 - 1;

/**
 * An offset as a REST route's operation carries it, in a GraphQL Int: no list is 2^31 items long,
 * so any offset past that is the same empty page (passed as it was, `offset=2147483648` was a 500).
 */
export const offsetVariable = (o: number): number => Math.min(o, GRAPHQL_INT_MAX);

/** The list parameters (listOf): REST reads each as comma-separated items, the parameter repeated joined into them. */
const LISTS = new WeakSet<z.ZodType>();
export const isList = (schema: z.ZodType): boolean => LISTS.has(schema);

/**
 * A list of 1 to `max` distinct items: GraphQL's list, or REST's `codes=a,b,c` (the REST router
 * joins `codes=a&codes=b` into that form), whose empty items are ignored (`a,,b`, a trailing comma,
 * `codes=`). Copies count once against the bound (51 of "vail" are one resort), and the list is
 * kept as asked (GraphQL's zips answers position by position); /openapi.json shows the bound as
 * maxItems.
 */
export function listOf<T extends z.ZodType>(item: T, max: number) {
  const schema = z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map(trimSpaces)
            .filter((s) => s !== '')
        : v,
    z
      .array(item)
      .min(1)
      .refine((list) => new Set(list).size <= max, { error: `at most ${max} distinct items` })
      .meta({ maxItems: max }),
  );
  LISTS.add(schema);
  return schema;
}

// Control characters, and what a search never means: line and paragraph separators, invisible format characters (a BOM, bidi marks).
const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
// With the u flag a pair is one code point: only a surrogate without its pair matches.
const LONE_SURROGATE = /\p{Cs}/u;

/** Spaces around a list's item or a name go (`a, b`); nothing else is trimmed unseen. */
export const trimSpaces = (s: string) => s.replace(/^ +| +$/g, '');

export const CONTROL_BOUND = 'free of control, format and line-separator characters (Unicode Cc, Cf, Zl, Zp)';

/**
 * Text as a client means it: no control characters, checked before any trimming (a tab or a line
 * break at the ends was trimmed away unseen), and well-formed Unicode (a lone surrogate from a JSON
 * escape is no character: searched for, it was quietly another word).
 */
export const plainText = () =>
  z
    .string()
    .refine((s) => !CONTROL.test(s), { error: CONTROL_BOUND, abort: true })
    .refine((s) => !LONE_SURROGATE.test(s), { error: 'well-formed Unicode (no lone surrogates)', abort: true });

/**
 * Words a client searches for (a resort's name, a region, a city): plain text, 1 to `max`
 * characters once spaces around it are trimmed (spaces only: zod's trim takes every kind of blank). SQLite's LIKE stops reading at a NUL, so `q=%00`
 * matched every resort.
 */
export const searchText = (max: number) => plainText().overwrite(trimSpaces).min(1).max(max);

export const ZIP_BOUNDS = {
  radiusMiles: { default: 25, max: 200 },
  nearbyLimit: { default: 50, max: 200 },
  stateLimit: { default: 100, max: 1000 },
  cityMaxLength: 100,
} as const;

export const zipCode = z.string().regex(/^\d{5}$/, 'exactly 5 digits');
export const stateCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'a 2-letter state code')
  .transform((s) => s.toUpperCase());

export const ZipParams = z.object({ zip: zipCode });

export const NearbyParams = z.object({
  zip: zipCode,
  radiusMiles: numeric(z.number().gt(0).max(ZIP_BOUNDS.radiusMiles.max)).default(ZIP_BOUNDS.radiusMiles.default),
  limit: integer(1, ZIP_BOUNDS.nearbyLimit.max).default(ZIP_BOUNDS.nearbyLimit.default),
});

/** Nearby from a known parent (Zip.nearby): the same bounds without the ZIP itself. */
export const NearbyOptions = NearbyParams.omit({ zip: true });

export const StateParams = z.object({ state: stateCode });

export const StatePaging = z.object({
  limit: integer(1, ZIP_BOUNDS.stateLimit.max).default(ZIP_BOUNDS.stateLimit.default),
  offset,
});

export const StateZipsParams = StateParams.extend(StatePaging.shape);

export const CityParams = z.object({
  // As cities(prefix) reads it: a name of no letter or digit (a lone NBSP) is a bad request, not an unknown city.
  city: searchText(ZIP_BOUNDS.cityMaxLength).refine((c) => c === '' || cityKey(c).length > 0, { error: 'a letter or digit' }),
  state: stateCode.optional(),
});
