import type { Db } from '../db/open.js';
import { ZIPS } from '../db/tables.js';
import { intern } from '../intern.js';
import type { ZipPoint } from '../domain/zip-spatial-index.js';

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

type ZipRow = Omit<ZipRecord, 'stateName'>;

const ZIP_COLUMNS = ZIPS.select();
const STATE_COLUMNS = 'state_code AS stateCode, state_name AS stateName, fips, zip_count AS zipCount';

/**
 * SQL for ZIPs and states. The 51 states are read once and kept in memory (they change only with
 * a rebuild), so a ZIP is one primary-key read with its state's name added from memory; a join
 * cost three times as much per lookup. Lists of keys are passed as one JSON array parameter, so a
 * batch of any size is one prepared statement and one execution (what the DataLoaders rely on).
 */
export class ZipRepository {
  private readonly byZips;
  private readonly byZip;
  private readonly pageOfStates;
  private readonly byCityStmt;
  private readonly pointsStmt;
  private readonly states: StateRecord[];
  private readonly stateByCode: Map<string, StateRecord>;
  private readonly totalZips: number;

  constructor(db: Db) {
    this.states = db.prepare<[], StateRecord>(`SELECT ${STATE_COLUMNS} FROM states ORDER BY state_code`).all();
    this.stateByCode = new Map(this.states.map((s) => [s.stateCode, s]));
    this.totalZips = this.states.reduce((n, s) => n + s.zipCount, 0);
    this.byZips = db.prepare<[string], ZipRow>(`SELECT ${ZIP_COLUMNS} FROM zips WHERE zip IN (SELECT value FROM json_each(?))`);
    // One key, the common REST lookup, skips json_each: measured ~10% of a lookup's CPU.
    this.byZip = db.prepare<[string], ZipRow>(`SELECT ${ZIP_COLUMNS} FROM zips WHERE zip = ?`);
    // One page per state for many states at once: number each state's ZIPs in order, keep the window.
    this.pageOfStates = db.prepare<[string, number, number], ZipRow & { rn: number }>(
      `SELECT * FROM (
         SELECT ${ZIP_COLUMNS}, ROW_NUMBER() OVER (PARTITION BY state_code ORDER BY zip) AS rn
         FROM zips WHERE state_code IN (SELECT value FROM json_each(?))
       ) WHERE rn > ? AND rn <= ? ORDER BY stateCode, zip`,
    );
    this.byCityStmt = db.prepare<{ city: string; state: string | null }, ZipRow>(
      `SELECT ${ZIP_COLUMNS} FROM zips WHERE city = :city COLLATE NOCASE AND (:state IS NULL OR state_code = :state) ORDER BY zip`,
    );
    this.pointsStmt = db
      .prepare<[], [string, string, string, string, number, number]>('SELECT zip, city, state_code, county, lat, lng FROM zips ORDER BY zip')
      .raw();
  }

  /** The row with its state's name (every ZIP's state is one of the 51 in memory). */
  private withState(row: ZipRow): ZipRecord {
    return {
      zip: row.zip,
      city: row.city,
      stateCode: row.stateCode,
      stateName: this.stateByCode.get(row.stateCode)!.stateName,
      county: row.county,
      countyFips: row.countyFips,
      lat: row.lat,
      lng: row.lng,
      lastUpdated: row.lastUpdated,
    };
  }

  findByZips(zips: readonly string[]): ZipRecord[] {
    if (zips.length === 1) {
      const row = this.byZip.get(zips[0]!);
      return row ? [this.withState(row)] : [];
    }
    return this.byZips.all(JSON.stringify(zips)).map((r) => this.withState(r));
  }

  /** States by code, from memory: no statement. */
  findStates(codes: readonly string[]): StateRecord[] {
    return codes.flatMap((c) => this.stateByCode.get(c) ?? []);
  }

  allStates(): StateRecord[] {
    return this.states;
  }

  /** ZIPs of several states, `limit` of each after skipping `offset`, in ZIP order. */
  pageByStates(codes: readonly string[], limit: number, offset: number): ZipRecord[] {
    return this.pageOfStates.all(JSON.stringify(codes), offset, offset + limit).map((r) => this.withState(r));
  }

  findByCity(city: string, state: string | null): ZipRecord[] {
    return this.byCityStmt.all({ city, state }).map((r) => this.withState(r));
  }

  stats(): { totalZips: number; totalStates: number } {
    return { totalZips: this.totalZips, totalStates: this.states.length };
  }

  /** Everything the in-memory spatial index needs, read once at start-up (as arrays: half the time of objects). */
  allPoints(): ZipPoint[] {
    return this.pointsStmt.all().map(([zip, city, stateCode, county, lat, lng]) => ({ zip, city: intern(city), stateCode: intern(stateCode), county: intern(county), lat, lng }));
  }
}
