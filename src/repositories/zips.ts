import type { Db } from '../db/open.js';

export interface ZipRecord {
  zip: string;
  city: string;
  stateCode: string;
  stateName: string;
  county: string;
  countyFips: string;
  lat: number;
  lng: number;
  lastUpdated: string;
}

export interface StateRecord {
  stateCode: string;
  stateName: string;
  fips: string;
  zipCount: number;
}

const ZIP_COLUMNS = `z.zip, z.city, z.state_code AS stateCode, s.state_name AS stateName, z.county,
  z.county_fips AS countyFips, z.lat, z.lng, z.last_updated AS lastUpdated`;
const STATE_COLUMNS = 's.state_code AS stateCode, s.state_name AS stateName, s.fips, s.zip_count AS zipCount';

/**
 * SQL for ZIPs and states. Lists of keys are passed as one JSON array parameter, so a batch of any
 * size is one prepared statement and one execution (what the per-request DataLoaders rely on).
 */
export class ZipRepository {
  private readonly byZips;
  private readonly byZip;
  private readonly statesByCodes;
  private readonly allStatesStmt;
  private readonly pageOfStates;
  private readonly byCityStmt;
  private readonly statsStmt;
  private readonly pointsStmt;

  constructor(db: Db) {
    this.byZips = db.prepare<[string], ZipRecord>(
      `SELECT ${ZIP_COLUMNS} FROM zips z JOIN states s USING (state_code)
       WHERE z.zip IN (SELECT value FROM json_each(?))`,
    );
    // One key, the common REST lookup, skips json_each: measured ~10% of a lookup's CPU.
    this.byZip = db.prepare<[string], ZipRecord>(`SELECT ${ZIP_COLUMNS} FROM zips z JOIN states s USING (state_code) WHERE z.zip = ?`);
    this.statesByCodes = db.prepare<[string], StateRecord>(
      `SELECT ${STATE_COLUMNS} FROM states s WHERE s.state_code IN (SELECT value FROM json_each(?))`,
    );
    this.allStatesStmt = db.prepare<[], StateRecord>(`SELECT ${STATE_COLUMNS} FROM states s ORDER BY s.state_code`);
    // One page per state for many states at once: number each state's ZIPs in order, keep the window.
    this.pageOfStates = db.prepare<[string, number, number], ZipRecord & { rn: number }>(
      `SELECT * FROM (
         SELECT ${ZIP_COLUMNS}, ROW_NUMBER() OVER (PARTITION BY z.state_code ORDER BY z.zip) AS rn
         FROM zips z JOIN states s USING (state_code)
         WHERE z.state_code IN (SELECT value FROM json_each(?))
       ) WHERE rn > ? AND rn <= ? ORDER BY stateCode, zip`,
    );
    this.byCityStmt = db.prepare<{ city: string; state: string | null }, ZipRecord>(
      `SELECT ${ZIP_COLUMNS} FROM zips z JOIN states s USING (state_code)
       WHERE z.city = :city COLLATE NOCASE AND (:state IS NULL OR z.state_code = :state)
       ORDER BY z.zip`,
    );
    this.statsStmt = db.prepare<[], { totalZips: number; totalStates: number }>(
      'SELECT (SELECT count(*) FROM zips) AS totalZips, (SELECT count(*) FROM states) AS totalStates',
    );
    this.pointsStmt = db.prepare<[], Pick<ZipRecord, 'zip' | 'city' | 'stateCode' | 'county' | 'lat' | 'lng'>>(
      'SELECT zip, city, state_code AS stateCode, county, lat, lng FROM zips ORDER BY zip',
    );
  }

  findByZips(zips: readonly string[]): ZipRecord[] {
    if (zips.length === 1) return this.byZip.all(zips[0]!);
    return this.byZips.all(JSON.stringify(zips));
  }

  findStates(codes: readonly string[]): StateRecord[] {
    return this.statesByCodes.all(JSON.stringify(codes));
  }

  allStates(): StateRecord[] {
    return this.allStatesStmt.all();
  }

  /** ZIPs of several states, `limit` of each after skipping `offset`, in ZIP order. */
  pageByStates(codes: readonly string[], limit: number, offset: number): ZipRecord[] {
    return this.pageOfStates.all(JSON.stringify(codes), offset, offset + limit).map(({ rn: _rn, ...zip }) => zip);
  }

  findByCity(city: string, state: string | null): ZipRecord[] {
    return this.byCityStmt.all({ city, state });
  }

  stats(): { totalZips: number; totalStates: number } {
    return this.statsStmt.get()!;
  }

  /** Everything the in-memory spatial index needs, read once at start-up. */
  allPoints() {
    return this.pointsStmt.all();
  }
}
