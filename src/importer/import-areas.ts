import type { Db } from '../data/db/open.js';
import { countryInfo } from '../domain/countries.js';
import { haversineMiles, KM_PER_MILE } from '../domain/geo.js';
import { inventoryWriter, resortInsert } from '../data/db/inventory-writer.js';
import type { ResortFacts } from '../domain/resort.js';
import { descriptiveFacts } from '../domain/resort-fields.js';
import { RESORTS } from '../data/db/tables.js';
import type { ImportedArea } from './formats.js';
import { slugify, uniqueSlug } from './slug.js';
import { timeZoneAt } from '../data/db/sources/time-zones.js';
import { writeZoneOffsets } from '../data/db/zone-offsets.js';

export interface AreaImportOptions {
  includeNonOperating: boolean;
  includeNonDownhill: boolean;
  onProgress?: (done: number, total: number) => void;
}

export interface AreaImportResult {
  added: number;
  updated: number;
  matchedCurated: number;
  skipped: { nonOperating: number; nonDownhill: number; noCountry: number };
}

/** A curated resort this close to an imported area, with a shared name word, is the same place. */
const SAME_PLACE_KM = 5;

const words = (s: string) =>
  new Set(
    slugify(s)
      .split('-')
      .filter((w) => w.length > 2),
  );

function facts(id: string, a: ImportedArea, country: NonNullable<ReturnType<typeof countryInfo>>): ResortFacts {
  const base = Math.round(a.minElevation ?? a.maxElevation ?? 0);
  return {
    id,
    name: a.name ?? `Ski area ${id}`,
    countryCode: country.code,
    countryName: country.name,
    region: a.region ?? country.name,
    continent: country.continent,
    lat: Math.round(a.lat * 1e5) / 1e5,
    lng: Math.round(a.lng * 1e5) / 1e5,
    baseElevation: base,
    summitElevation: Math.max(base + 1, Math.round(a.maxElevation ?? base + 1)),
    liftCount: a.liftCount,
    trailCount: a.runCount,
    timezone: timeZoneAt(a.lat, a.lng),
    ...descriptiveFacts(a),
  };
}

/**
 * Upserts ski areas into the catalogue, in one transaction. Curated resorts keep their ids and
 * facts (an area matching one is only linked to it); areas imported before are found again by
 * their source id and keep their slug; new areas get a collision-safe slug.
 */
export function importAreas(db: Db, areas: readonly ImportedArea[], options: AreaImportOptions): AreaImportResult {
  const result: AreaImportResult = { added: 0, updated: 0, matchedCurated: 0, skipped: { nonOperating: 0, nonDownhill: 0, noCountry: 0 } };
  const bySource = db.prepare<[string, string], { resortId: string }>('SELECT resort_id AS resortId FROM resort_sources WHERE source = ? AND source_id = ?');
  const link = db.prepare('INSERT OR REPLACE INTO resort_sources (source, source_id, resort_id) VALUES (?, ?, ?)');
  const exists = db.prepare<[string], { id: string }>('SELECT id FROM resorts WHERE id = ?');
  const originOf = db.prepare<[string], { origin: string; inventory: string }>('SELECT origin, inventory_source AS inventory FROM resorts WHERE id = ?');
  const insert = resortInsert(db, 'imported');
  const assignments = Object.entries(RESORTS.columns)
    .filter(([field]) => field !== 'id')
    .map(([field, column]) => `${column} = @${field}`);
  const update = db.prepare(`UPDATE resorts SET ${assignments.join(', ')} WHERE id = @id AND origin = 'imported'`);
  const inventory = inventoryWriter(db);
  const curated = db
    .prepare<[], { id: string; name: string; lat: number; lng: number }>("SELECT id, name, lat, lng FROM resorts WHERE origin = 'curated'")
    .all();

  db.transaction(() => {
    for (const [i, a] of areas.entries()) {
      options.onProgress?.(i, areas.length);
      if (!a.operating && !options.includeNonOperating) {
        result.skipped.nonOperating++;
        continue;
      }
      if (!a.downhill && !options.includeNonDownhill) {
        result.skipped.nonDownhill++;
        continue;
      }
      const country = a.countryCode ? countryInfo(a.countryCode) : null;
      if (!country) {
        result.skipped.noCountry++;
        continue;
      }

      const known = bySource.get(a.source, a.sourceId)?.resortId;
      if (known && originOf.get(known)?.origin === 'imported') {
        const f = facts(known, a, country);
        update.run(f);
        if (originOf.get(known)?.inventory === 'generated') inventory.generated(f);
        result.updated++;
        continue;
      }
      if (known) continue; // linked to a curated resort already: curated facts stand

      const nameWords = words(a.name ?? '');
      const twin = curated.find(
        (c) => haversineMiles(a.lat, a.lng, c.lat, c.lng) * KM_PER_MILE <= SAME_PLACE_KM && [...words(c.name)].some((w) => nameWords.has(w)),
      );
      if (twin) {
        link.run(a.source, a.sourceId, twin.id);
        if (a.openSkiMapId && a.source !== 'openskimap') link.run('openskimap', a.openSkiMapId, twin.id);
        result.matchedCurated++;
        continue;
      }
      const id = uniqueSlug(a.name, a.countryCode, a.region, a.sourceId, (s) => exists.get(s) !== undefined);
      const f = facts(id, a, country);
      insert(f);
      inventory.generated(f);
      link.run(a.source, a.sourceId, id);
      if (a.openSkiMapId && a.source !== 'openskimap') link.run('openskimap', a.openSkiMapId, id);
      result.added++;
    }
    options.onProgress?.(areas.length, areas.length);
    writeZoneOffsets(db);
  })();
  return result;
}
