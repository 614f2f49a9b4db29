import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { countryInfo } from '../../../domain/countries.js';
import type { ResortFacts } from '../../../domain/resort.js';
import { descriptiveFacts, RESORT_FIELDS } from '../../../domain/resort-fields.js';
import { dataFile } from '../../../lib/paths.js';
import { timeZoneAt } from './time-zones.js';

/** The curated catalogue, committed under data/: public facts written down by hand. */
export const RESORT_CATALOGUE = dataFile('resorts.json');

/** Each descriptive fact under its own name, null or absent when unknown. */
const descriptiveChecks = Object.fromEntries(Object.entries(RESORT_FIELDS).map(([name, f]) => [name, f.check.nullable().optional()])) as {
  [F in keyof typeof RESORT_FIELDS]: z.ZodOptional<z.ZodNullable<(typeof RESORT_FIELDS)[F]['check']>>;
};

const Entry = z
  .object({
    id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/),
    name: z.string().min(1),
    country: z.string().regex(/^[A-Z]{2}$/),
    region: z.string().min(1),
    lat: z.number().min(-90).max(90),
    lng: z.number().min(-180).max(180),
    base: z.number().int().min(-100).max(6000),
    summit: z.number().int().min(0).max(7000),
    lifts: z.number().int().min(1).max(200),
    trails: z.number().int().min(1).max(500),
    /**
     * Why base or summit differ by more than 150 m from OpenSkiMap's lift-served range for the
     * area (the catalogue test checks the rest): a lift it lacks, an area it splits or merges.
     */
    elevationNote: z.string().min(10).optional(),
    ...descriptiveChecks,
  })
  .refine((r) => r.summit > r.base, { message: 'summit must be above base' })
  .refine((r) => countryInfo(r.country) !== null, { message: 'unknown country code' });

/** Reads and checks the catalogue; a bad entry stops the build with its id and the problem. */
export function loadResortCatalogue(file = RESORT_CATALOGUE): ResortFacts[] {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as unknown[];
  const seen = new Set<string>();
  return raw.map((item, i) => {
    const parsed = Entry.safeParse(item);
    if (!parsed.success) {
      throw new Error(
        `${path.basename(file)} entry ${i} (${(item as { id?: string }).id}): ${parsed.error.issues.map((x) => `${x.path.join('.')} ${x.message}`).join('; ')}`,
      );
    }
    const r = parsed.data;
    if (seen.has(r.id)) throw new Error(`${path.basename(file)}: duplicate id ${r.id}`);
    seen.add(r.id);
    const country = countryInfo(r.country)!;
    return {
      id: r.id,
      name: r.name,
      countryCode: country.code,
      countryName: country.name,
      region: r.region,
      continent: country.continent,
      lat: r.lat,
      lng: r.lng,
      baseElevation: r.base,
      summitElevation: r.summit,
      liftCount: r.lifts,
      trailCount: r.trails,
      timezone: timeZoneAt(r.lat, r.lng),
      ...descriptiveFacts(r),
    };
  });
}
