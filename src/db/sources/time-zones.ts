import { find, setCache } from 'geo-tz/all';

/**
 * IANA time zones from coordinates, offline, with geo-tz's comprehensive boundaries (at least one
 * zone per country, so a Swiss resort is Europe/Zurich, not an equivalent neighbour). Used when
 * the database is built or an import runs, never per request: the zone is stored with each ZIP
 * and resort. geo-tz caches the boundary tiles it reads; the cache is ours, and dropped after a
 * build so the server does not carry them.
 */
const tiles = new Map<string, unknown>();
setCache({ store: tiles as Map<string, never> });

export function timeZoneAt(lat: number, lng: number): string {
  // On a border geo-tz names every zone; the first is as good as the next.
  return find(lat, lng)[0] ?? 'Etc/UTC';
}

/** Releases the boundary tiles read so far (after a build or an import). */
export function forgetTimeZoneTiles(): void {
  tiles.clear();
}
