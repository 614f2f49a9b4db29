import KDBush from 'kdbush';
import { around } from 'geokdbush';
import { haversineMiles, KM_PER_MILE, roundMiles } from './geo.js';

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

/**
 * An in-memory KD-tree over every ZIP centroid (kdbush + geokdbush), built once at start-up.
 * Measured (npm run bench) far faster than an R*Tree query in SQLite at both small and large radii.
 * geokdbush walks the tree in great-circle order; the documented haversine (R = 3958.8 mi) then
 * gives the exact distance and the radius cut.
 */
export class ZipSpatialIndex {
  private readonly index: KDBush;
  private readonly byZip = new Map<string, number>();

  constructor(private readonly points: readonly ZipPoint[]) {
    this.index = new KDBush(Math.max(points.length, 1));
    points.forEach((p, i) => {
      this.index.add(p.lng, p.lat);
      this.byZip.set(p.zip, i);
    });
    this.index.finish();
  }

  get size(): number {
    return this.points.length;
  }

  /**
   * ZIPs within `radiusMiles` of a point, nearest first (ties by ZIP), at most `limit`.
   * `excludeZip` leaves the center ZIP itself out of its own neighbourhood.
   */
  nearby(lat: number, lng: number, radiusMiles: number, limit: number, excludeZip?: string): NearbyZip[] {
    const skip = excludeZip === undefined ? -1 : (this.byZip.get(excludeZip) ?? -1);
    // A hair of slack so the KD walk never cuts a point the exact formula keeps.
    const maxKm = radiusMiles * KM_PER_MILE * 1.0001 + 0.001;
    const ids = around(this.index, lng, lat, limit + 1, maxKm, (id) => id !== skip);
    const out: NearbyZip[] = [];
    for (const id of ids) {
      const p = this.points[id]!;
      const d = haversineMiles(lat, lng, p.lat, p.lng);
      if (d <= radiusMiles) out.push({ ...p, distanceMiles: roundMiles(d) });
    }
    out.sort((a, b) => a.distanceMiles - b.distanceMiles || (a.zip < b.zip ? -1 : 1));
    return out.slice(0, limit);
  }
}
