import { PointIndex } from './point-index.js';

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

/** Every ZIP centroid in a KD-tree, for nearby searches that never scan the table. */
export class ZipSpatialIndex {
  private readonly index: PointIndex<ZipPoint>;

  /** `points` sorted by ZIP, as fresh literals of one shape (driver rows made every copy far slower). */
  constructor(points: readonly ZipPoint[]) {
    this.index = new PointIndex(points, (p) => p.zip);
  }

  get size(): number {
    return this.index.size;
  }

  /** A ZIP's centroid and place, from memory. */
  point(zip: string): ZipPoint | undefined {
    return this.index.get(zip);
  }

  /** ZIPs within the radius, nearest first; `excludeZip` leaves the center ZIP out. */
  nearby(lat: number, lng: number, radiusMiles: number, limit: number, excludeZip?: string): NearbyZip[] {
    return this.index.nearbyAs(lat, lng, radiusMiles, limit, excludeZip, (p, distanceMiles) => ({
      zip: p.zip, city: p.city, stateCode: p.stateCode, county: p.county, lat: p.lat, lng: p.lng, distanceMiles,
    }));
  }
}
