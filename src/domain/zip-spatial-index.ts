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

/** What the index reads of the ZIP table (data/repositories/zip-table.ts): rows by code, places and centroids. */
export interface ZipColumns {
  readonly size: number;
  readonly lat: Float64Array;
  readonly lng: Float64Array;
  /** A code's row, or -1. */
  rowOf(zip: string): number;
  zipAt(row: number): string;
  cityAt(row: number): string;
  stateCodeAt(row: number): string;
  countyAt(row: number): string;
}

/** Every ZIP centroid in a KD-tree, for nearby searches that never scan the table. */
export class ZipSpatialIndex {
  /** Items are the table's rows. */
  private readonly index: PointIndex<number>;

  constructor(private readonly table: ZipColumns) {
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
      zip: t.zipAt(row),
      city: t.cityAt(row),
      stateCode: t.stateCodeAt(row),
      county: t.countyAt(row),
      lat: t.lat[row]!,
      lng: t.lng[row]!,
      distanceMiles,
    }));
  }
}
