/**
 * Alternatives to the production nearby search, kept so `npm run bench` shows why it was chosen.
 */
import Database from 'better-sqlite3';
import KDBush from 'kdbush';
import { around } from 'geokdbush';
import { EARTH_RADIUS_MILES, haversineMiles } from '../src/domain/geo.js';
import type { ZipPoint } from '../src/domain/zip-spatial-index.js';

const RAD = Math.PI / 180;

/** SQLite R*Tree box query, then the exact distance, sorted, first `limit`. */
export function rtreeNearby(points: readonly ZipPoint[]) {
  const mem = new Database(':memory:');
  mem.exec('CREATE VIRTUAL TABLE r USING rtree(id, minLat, maxLat, minLng, maxLng)');
  const ins = mem.prepare('INSERT INTO r VALUES (?, ?, ?, ?, ?)');
  mem.transaction(() => {
    for (const [i, p] of points.entries()) ins.run(i, p.lat, p.lat, p.lng, p.lng);
  })();
  const box = mem.prepare<[number, number, number, number], { id: number }>(
    'SELECT id FROM r WHERE minLat >= ? AND maxLat <= ? AND minLng >= ? AND maxLng <= ?',
  );
  return (lat: number, lng: number, miles: number, limit: number) => {
    const [[w, s, e, n]] = capBoxes(lat, lng, miles) as [[number, number, number, number]];
    return box
      .all(s, n, w, e)
      .map(({ id }) => ({ p: points[id]!, d: haversineMiles(lat, lng, points[id]!.lat, points[id]!.lng) }))
      .filter((x) => x.d <= miles)
      .sort((a, b) => a.d - b.d)
      .slice(0, limit);
  };
}

/** kdbush box query over the cap's bounding box, exact distance, sorted, first `limit`. */
export function kdBoxNearby(points: readonly ZipPoint[]) {
  const index = new KDBush(points.length);
  for (const p of points) index.add(p.lng, p.lat);
  index.finish();
  return (lat: number, lng: number, miles: number, limit: number) => {
    const hits: { id: number; d: number }[] = [];
    for (const [w, s, e, n] of capBoxes(lat, lng, miles)) {
      for (const id of index.range(w, s, e, n)) {
        const d = haversineMiles(lat, lng, points[id]!.lat, points[id]!.lng);
        if (d <= miles) hits.push({ id, d });
      }
    }
    return hits.sort((a, b) => a.d - b.d).slice(0, limit);
  };
}

/**
 * The previous choice: geokdbush's nearest-first walk over a kdbush of longitude and latitude
 * (trigonometry at every node it opens), exact distance, first `limit`.
 */
export function geoWalkNearby(points: readonly ZipPoint[]) {
  const index = new KDBush(points.length);
  for (const p of points) index.add(p.lng, p.lat);
  index.finish();
  return (lat: number, lng: number, miles: number, limit: number) =>
    around(index, lng, lat, limit, miles * 1.609344 * 1.0001 + 0.001)
      .map((id) => ({ id, d: haversineMiles(lat, lng, points[id]!.lat, points[id]!.lng) }))
      .filter((x) => x.d <= miles);
}

/**
 * The latitude/longitude box(es) holding every point within `miles` of (lat, lng) on the sphere,
 * split in two where it crosses the antimeridian (the Aleutians do), widened to all longitudes
 * where the cap reaches a pole.
 */
export function capBoxes(lat: number, lng: number, miles: number): [number, number, number, number][] {
  const angular = miles / EARTH_RADIUS_MILES;
  const slack = 1e-9;
  const minLat = lat - angular / RAD - slack;
  const maxLat = lat + angular / RAD + slack;
  if (minLat <= -90 || maxLat >= 90 || angular >= Math.PI / 2) {
    return [[-180, Math.max(-90, minLat), 180, Math.min(90, maxLat)]];
  }
  const dLng = Math.asin(Math.min(1, Math.sin(angular) / Math.cos(lat * RAD))) / RAD + slack;
  const west = lng - dLng;
  const east = lng + dLng;
  if (west < -180)
    return [
      [west + 360, minLat, 180, maxLat],
      [-180, minLat, east, maxLat],
    ];
  if (east > 180)
    return [
      [west, minLat, 180, maxLat],
      [-180, minLat, east - 360, maxLat],
    ];
  return [[west, minLat, east, maxLat]];
}
