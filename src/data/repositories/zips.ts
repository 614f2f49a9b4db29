import type { Db } from '../db/open.js';
import { ZIPS } from '../db/tables.js';
import { ZIP_TABLE_ROWS_SQL, ZipTable, type ZipColumnsRow, type ZipRecord } from './zip-table.js';
import { cityKey, cityPrefixKeys } from '../../domain/city-key.js';

export type { ZipRecord } from './zip-table.js';

export interface StateRecord {
  stateCode: string;
  stateName: string;
  fips: string;
  zipCount: number;
}

type ZipRow = Omit<ZipRecord, 'stateName'>;

export interface CityCount {
  city: string;
  stateCode: string;
  zipCount: number;
}

const ZIP_COLUMNS = ZIPS.select();
/** Pages over states holding at least 1/WHOLE_TABLE_SHARE of all ZIPs read the whole table (pageByStates). */
const WHOLE_TABLE_SHARE = 4;
const STATE_COLUMNS = 'state_code AS stateCode, state_name AS stateName, fips, zip_count AS zipCount';

/**
 * ZIPs and states. Both are static reference data (they change only with a rebuild, which means a
 * restart), so the 51 states and the 40,977 ZIP records are read once and served from memory (as
 * columns, repositories/zip-table.ts): a lookup is an array read. Under load the primary-key
 * read was a large share of a REST lookup's CPU (BENCHMARKS.md, design figures: ZIP table) (a read transaction's file locks, and page
 * reads after every write by the usage counter emptied the connection's page cache). The table
 * also feeds the spatial index and the pages of a state, so it is held once. City lookups stay
 * in SQL, where the indexes do the work (as do pages and lookups in the moments before the table
 * is read); their lists are passed as one JSON array parameter, so a batch of any size is one
 * prepared statement (what the DataLoaders rely on).
 */
export class ZipRepository {
  private readonly statePageStmt;
  private readonly byCityStmt;
  private readonly citiesStmt;
  private readonly allStmt;
  private readonly countStmt;
  private readonly byZipStmt;
  private readonly byZipsStmt;
  private readonly states: StateRecord[];
  private readonly stateByCode: Map<string, StateRecord>;
  private readonly totalZips: number;
  private zipTable: ZipTable | null = null;

  constructor(db: Db) {
    this.states = db.prepare<[], StateRecord>(`SELECT ${STATE_COLUMNS} FROM states ORDER BY state_code`).all();
    this.stateByCode = new Map(this.states.map((s) => [s.stateCode, s]));
    this.totalZips = this.states.reduce((n, s) => n + s.zipCount, 0);
    // One state's page, as an index range (zips_by_state): only the rows of the window are read.
    this.statePageStmt = db.prepare<[string, number, number], ZipRow>(`SELECT ${ZIP_COLUMNS} FROM zips WHERE state_code = ? ORDER BY zip LIMIT ? OFFSET ?`);
    this.byCityStmt = db.prepare<{ key: string; state: string | null }, ZipRow>(
      `SELECT ${ZIP_COLUMNS} FROM zips WHERE city_key = :key AND (:state IS NULL OR state_code = :state) ORDER BY zip`,
    );
    // Keys starting with a prefix, as an index range; a city name is one per key and state.
    this.citiesStmt = db.prepare<{ keys: string; state: string | null; limit: number }, CityCount>(
      `SELECT min(z.city) AS city, z.state_code AS stateCode, count(*) AS zipCount
       FROM json_each(:keys) p JOIN zips z ON z.city_key >= p.value AND z.city_key < p.value || char(0x10FFFF)
       WHERE :state IS NULL OR z.state_code = :state
       GROUP BY z.city_key, z.state_code ORDER BY zipCount DESC, city, stateCode LIMIT :limit`,
    );
    // Until the table is in memory (it is loaded just after the server listens), rows are read.
    this.byZipStmt = db.prepare<[string], ZipRow>(`SELECT ${ZIP_COLUMNS} FROM zips WHERE zip = ?`);
    this.byZipsStmt = db.prepare<[string], ZipRow>(`SELECT ${ZIP_COLUMNS} FROM zips WHERE zip IN (SELECT value FROM json_each(?))`);
    this.allStmt = db.prepare<[], ZipColumnsRow>(ZIP_TABLE_ROWS_SQL).raw();
    this.countStmt = db.prepare<[], number>('SELECT count(*) FROM zips').pluck();
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
      timezone: row.timezone,
      lastUpdated: row.lastUpdated,
    };
  }

  /** Every ZIP in ZIP order, as columns, read on first use (warmed just after the server listens). */
  table(): ZipTable {
    return this.load();
  }

  /** Reads the table into memory now (the server calls it once it listens). */
  warm(): void {
    this.load();
  }

  private load(): ZipTable {
    // Row by row from the driver: each row dies young, where collecting it is cheap.
    this.zipTable ??= new ZipTable(this.countStmt.get()!, this.allStmt.iterate(), (code) => this.stateByCode.get(code)!.stateName);
    return this.zipTable;
  }

  /** A ZIP from the table in memory (null when there is none); undefined before the table is loaded. */
  inMemory(zip: string): ZipRecord | null | undefined {
    const table = this.zipTable;
    if (!table) return undefined;
    const row = table.rowOf(zip);
    return row >= 0 ? table.record(row) : null;
  }

  findByZips(zips: readonly string[]): ZipRecord[] {
    const table = this.zipTable;
    if (!table) {
      // A request in the first moments after start: the first answer need not wait for the table.
      if (zips.length === 1) {
        const row = this.byZipStmt.get(zips[0]!);
        return row ? [this.withState(row)] : [];
      }
      return this.byZipsStmt.all(JSON.stringify(zips)).map((r) => this.withState(r));
    }
    const found: ZipRecord[] = [];
    for (const zip of zips) {
      const row = table.rowOf(zip);
      if (row >= 0) found.push(table.record(row));
    }
    return found;
  }

  /** A state by code, from memory (null when there is none): no statement, nothing to batch. */
  state(code: string): StateRecord | null {
    return this.stateByCode.get(code) ?? null;
  }

  allStates(): StateRecord[] {
    return this.states;
  }

  /**
   * ZIPs of several states, `limit` of each after skipping `offset`, by state then ZIP. From
   * memory once the table is there: a page of 1,000 was a window query and 2,000 new objects per
   * request, now 1,000 records made from the columns. Before, each state's page is read by the
   * index; pages over states holding a quarter of all ZIPs or more read the whole table instead,
   * once (it costs about what those pages cost, and answers every later page from memory).
   */
  pageByStates(codes: readonly string[], limit: number, offset: number): ZipRecord[] {
    const states = [...new Set(codes)].sort();
    const table = this.zipTable ?? (this.zipsIn(states) * WHOLE_TABLE_SHARE >= this.totalZips ? this.load() : null);
    if (!table) return states.flatMap((code) => this.statePageStmt.all(code, limit, offset).map((r) => this.withState(r)));
    // One state (a page as REST and most documents ask for it) without flatMap's copy of the page.
    return states.length === 1 ? table.statePage(states[0]!, offset, limit) : states.flatMap((code) => table.statePage(code, offset, limit));
  }

  /** How many ZIPs the states hold (a code of no state holds none). */
  private zipsIn(codes: readonly string[]): number {
    return codes.reduce((n, code) => n + (this.stateByCode.get(code)?.zipCount ?? 0), 0);
  }

  /** One state's page from the table in memory; undefined before the table is loaded. */
  statePageInMemory(code: string, limit: number, offset: number): ZipRecord[] | undefined {
    return this.zipTable?.statePage(code, offset, limit);
  }

  /** ZIPs of a city, matched forgivingly (cityKey): "St. Louis", "st louis" and "Saint Louis" agree. */
  findByCity(city: string, state: string | null): ZipRecord[] {
    return this.byCityStmt.all({ key: cityKey(city), state }).map((r) => this.withState(r));
  }

  /** Cities whose name starts with a prefix (matched as cityKey does), most ZIPs first. One statement. */
  citiesByPrefix(prefix: string, state: string | null, limit: number): CityCount[] {
    return this.citiesStmt.all({ keys: JSON.stringify(cityPrefixKeys(prefix)), state, limit });
  }

  stats(): { totalZips: number; totalStates: number } {
    return { totalZips: this.totalZips, totalStates: this.states.length };
  }
}
