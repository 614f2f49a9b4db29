import type { Db } from '../db/open.js';
import { ZIPS } from '../db/tables.js';
import { intern } from '../intern.js';

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
 * ZIPs and states. Both are static reference data (they change only with a rebuild, which means a
 * restart), so the 51 states and the 40,977 ZIP records are read once and served from memory: a
 * lookup is a map read that returns the same record every time. Measured under load, the
 * primary-key read was a fifth of a REST lookup's CPU (a read transaction's file locks, and page
 * reads after every write by the usage counter emptied the connection's page cache). The records
 * also feed the spatial index, so they are held once. Pages of a state and city lookups stay in
 * SQL, where the indexes do the work; their lists are passed as one JSON array parameter, so a
 * batch of any size is one prepared statement (what the DataLoaders rely on).
 */
export class ZipRepository {
  private readonly pageOfStates;
  private readonly byCityStmt;
  private readonly allStmt;
  private readonly byZipStmt;
  private readonly byZipsStmt;
  private readonly states: StateRecord[];
  private readonly stateByCode: Map<string, StateRecord>;
  private readonly totalZips: number;
  private table: { records: ZipRecord[]; byZip: Map<string, ZipRecord> } | null = null;

  constructor(db: Db) {
    this.states = db.prepare<[], StateRecord>(`SELECT ${STATE_COLUMNS} FROM states ORDER BY state_code`).all();
    this.stateByCode = new Map(this.states.map((s) => [s.stateCode, s]));
    this.totalZips = this.states.reduce((n, s) => n + s.zipCount, 0);
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
    // Until the table is in memory (it is loaded just after the server listens), rows are read.
    this.byZipStmt = db.prepare<[string], ZipRow>(`SELECT ${ZIP_COLUMNS} FROM zips WHERE zip = ?`);
    this.byZipsStmt = db.prepare<[string], ZipRow>(`SELECT ${ZIP_COLUMNS} FROM zips WHERE zip IN (SELECT value FROM json_each(?))`);
    this.allStmt = db
      .prepare<[], [string, string, string, string, string, number, number, string]>('SELECT zip, city, state_code, county, county_fips, lat, lng, last_updated FROM zips ORDER BY zip')
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

  /** Every ZIP record in ZIP order, read on first use (warmed just after the server listens). */
  all(): readonly ZipRecord[] {
    return this.load().records;
  }

  /** Reads the table into memory now (the server calls it once it listens). */
  warm(): void {
    this.load();
  }

  private load(): { records: ZipRecord[]; byZip: Map<string, ZipRecord> } {
    if (this.table) return this.table;
    // Literals of one shape with interned repeated strings (cities, counties, states, the date):
    // arrays from the driver are half the time of row objects.
    const records = this.allStmt.all().map(([zip, city, stateCode, county, countyFips, lat, lng, lastUpdated]): ZipRecord => ({
      zip,
      city: intern(city),
      stateCode: intern(stateCode),
      stateName: this.stateByCode.get(stateCode)!.stateName,
      county: intern(county),
      countyFips: intern(countyFips),
      lat,
      lng,
      lastUpdated: intern(lastUpdated),
    }));
    this.table = { records, byZip: new Map(records.map((r) => [r.zip, r])) };
    return this.table;
  }

  findByZips(zips: readonly string[]): ZipRecord[] {
    if (!this.table) {
      // A request in the first moments after start: the first answer need not wait for the table.
      if (zips.length === 1) {
        const row = this.byZipStmt.get(zips[0]!);
        return row ? [this.withState(row)] : [];
      }
      return this.byZipsStmt.all(JSON.stringify(zips)).map((r) => this.withState(r));
    }
    const { byZip } = this.table;
    const found: ZipRecord[] = [];
    for (const zip of zips) {
      const record = byZip.get(zip);
      if (record) found.push(record);
    }
    return found;
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
}
