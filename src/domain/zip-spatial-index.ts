import { PointIndex } from './point-index.js';
import type { ZipTable } from '../repositories/zip-table.js';

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
  /** Items are the table's rows. */
  private readonly index: PointIndex<number>;

  constructor(private readonly table: ZipTable) {
    this.index = new PointIndex({ size: table.size, positionOf: (zip) => table.rowOf(zip) }, table.lat, table.lng, (row) => row);
  }

  get size(): number {
    return this.index.size;
  }

  /** A ZIP's centroid and place, from memory. */
  point(zip: string): ZipPoint | undefined {
    const row = this.table.rowOf(zip);
    if (row < 0) return undefined;
    const t = this.table;
    return { zip: t.zipAt(row), city: t.cityAt(row), stateCode: t.stateCodeAt(row), county: t.countyAt(row), lat: t.lat[row]!, lng: t.lng[row]! };
  }

  /** ZIPs within the radius, nearest first; `excludeZip` leaves the center ZIP out. */
  nearby(lat: number, lng: number, radiusMiles: number, limit: number, excludeZip?: string): NearbyZip[] {
    const t = this.table;
    return this.index.nearbyAs(lat, lng, radiusMiles, limit, excludeZip, (row, distanceMiles) => ({
      zip: t.zipAt(row), city: t.cityAt(row), stateCode: t.stateCodeAt(row), county: t.countyAt(row), lat: t.lat[row]!, lng: t.lng[row]!, distanceMiles,
    }));
  }
}
