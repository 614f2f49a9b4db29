import { createRequire } from 'node:module';

/**
 * IANA time zones from coordinates, offline, with geo-tz's comprehensive boundaries (at least one
 * zone per country, so a Swiss resort is Europe/Zurich, not an equivalent neighbour). Used when
 * the database is built or an import runs, never per request: the zone is stored with each ZIP
 * and resort. geo-tz is loaded on first use (its index is a large JSON file; a server that finds its
 * database built never loads it) and reads its data files from its own package directory, so the
 * bundle leaves it external. The boundary tiles it reads are cached in our map, dropped after a
 * build.
 */
type GeoTz = { find(lat: number, lng: number): string[]; setCache(options: { store: Map<string, unknown> }): void };

const tiles = new Map<string, unknown>();
let geoTz: GeoTz | null = null;

function load(): GeoTz {
  if (!geoTz) {
    geoTz = createRequire(import.meta.url)('geo-tz/all') as GeoTz;
    geoTz.setCache({ store: tiles });
  }
  return geoTz;
}

export function timeZoneAt(lat: number, lng: number): string {
  // On a border geo-tz names every zone; the first is as good as the next.
  return load().find(lat, lng)[0] ?? 'Etc/UTC';
}

/** Releases the boundary tiles read so far (after a build or an import). */
export function forgetTimeZoneTiles(): void {
  tiles.clear();
}
