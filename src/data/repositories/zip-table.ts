/** A ZIP code's record, as the table makes it when asked for. */
export interface ZipRecord {
  zip: string;
  city: string;
  stateCode: string;
  stateName: string;
  county: string;
  countyFips: string;
  lat: number;
  lng: number;
  /** IANA time zone. */
  timezone: string;
  /** ISO 8601 timestamp of the dataset. */
  lastUpdated: string;
}

/** A ZIP row as the repository reads it: zip, city, state code, county, county FIPS, lat, lng, zone, last updated. */
export type ZipColumnsRow = readonly [string, string, string, string, string, number, number, string, string];

/** The statement whose raw rows (`.raw()`) are ZipColumnsRow, in the order the table takes them. */
export const ZIP_TABLE_ROWS_SQL = 'SELECT zip, city, state_code, county, county_fips, lat, lng, timezone, last_updated FROM zips ORDER BY zip';

/** The strings of one column, each kept once, and the number each row stores instead. */
class StringColumn {
  readonly values: string[] = [];
  private readonly numbers = new Map<string, number>();

  number(value: string): number {
    let n = this.numbers.get(value);
    if (n === undefined) {
      n = this.values.push(value) - 1;
      this.numbers.set(value, n);
    }
    return n;
  }

  /** Drops the lookup once the table is read: only `values` is kept. */
  seal(): void {
    this.numbers.clear();
  }
}

const NO_ZIP = 100_000;

/**
 * The 40,977 ZIP records in memory as columns: typed arrays of numbers, and each repeated string
 * (city, county, state, zone, date) once. As columns it holds a fraction of what one object
 * per record and a map by code held, and the codes are numbers (a code's five characters are made
 * when a record is) (BENCHMARKS.md, design figures: ZIP table). A record is made when asked
 * for (a lookup, a page, a nearby result): one short-lived object. Rows come in ZIP order.
 */
export class ZipTable {
  readonly size: number;
  /** Every ZIP code as its number, in order. */
  private readonly codes: Int32Array;
  readonly lat: Float64Array;
  readonly lng: Float64Array;
  private readonly city: Uint16Array;
  private readonly county: Uint16Array;
  private readonly countyFips: Uint16Array;
  private readonly state: Uint8Array;
  private readonly zone: Uint8Array;
  private readonly updated: Uint8Array;
  private readonly strings: { city: string[]; county: string[]; countyFips: string[]; state: string[]; stateName: string[]; zone: string[]; updated: string[] };
  /** Row + 1 by the ZIP's number (0: none): a lookup is an array read, not a map of 40,977 keys. */
  private readonly rowOfZip: Int32Array;
  /** Each state's rows, in ZIP order, for pages of a state. */
  private readonly rowsOfState: Map<string, Int32Array>;

  constructor(count: number, rows: Iterable<ZipColumnsRow>, stateName: (code: string) => string) {
    this.codes = new Int32Array(count);
    this.lat = new Float64Array(count);
    this.lng = new Float64Array(count);
    this.city = new Uint16Array(count);
    this.county = new Uint16Array(count);
    this.countyFips = new Uint16Array(count);
    this.state = new Uint8Array(count);
    this.zone = new Uint8Array(count);
    this.updated = new Uint8Array(count);
    this.rowOfZip = new Int32Array(NO_ZIP);
    const columns = {
      city: new StringColumn(),
      county: new StringColumn(),
      countyFips: new StringColumn(),
      state: new StringColumn(),
      zone: new StringColumn(),
      updated: new StringColumn(),
    };
    let i = 0;
    for (const [zip, city, state, county, countyFips, lat, lng, zone, updated] of rows) {
      if (i === count) throw new Error(`more than the ${count} ZIP rows expected`);
      const n = zipNumber(zip);
      if (n < 0 || (i > 0 && n <= this.codes[i - 1]!)) throw new Error(`ZIP rows must be five-digit codes in order: ${zip}`);
      this.codes[i] = n;
      this.rowOfZip[n] = i + 1;
      this.lat[i] = lat;
      this.lng[i] = lng;
      this.city[i] = columns.city.number(city);
      this.county[i] = columns.county.number(county);
      this.countyFips[i] = columns.countyFips.number(countyFips);
      this.state[i] = columns.state.number(state);
      this.zone[i] = columns.zone.number(zone);
      this.updated[i] = columns.updated.number(updated);
      i++;
    }
    if (i !== count) throw new Error(`${i} ZIP rows, ${count} expected`);
    if (columns.city.values.length > 0xffff || columns.county.values.length > 0xffff || columns.countyFips.values.length > 0xffff)
      throw new Error('too many distinct cities or counties for 16 bits');
    if (columns.state.values.length > 0xff || columns.zone.values.length > 0xff || columns.updated.values.length > 0xff)
      throw new Error('too many distinct states, zones or dates for 8 bits');
    for (const c of Object.values(columns)) c.seal();
    this.size = count;
    this.strings = {
      city: columns.city.values,
      county: columns.county.values,
      countyFips: columns.countyFips.values,
      state: columns.state.values,
      stateName: columns.state.values.map(stateName),
      zone: columns.zone.values,
      updated: columns.updated.values,
    };
    const counts = new Map<number, number>();
    for (const s of this.state) counts.set(s, (counts.get(s) ?? 0) + 1);
    const rowsOfState = new Map<number, { rows: Int32Array; filled: number }>([...counts].map(([s, n]) => [s, { rows: new Int32Array(n), filled: 0 }]));
    this.state.forEach((s, row) => {
      const list = rowsOfState.get(s)!;
      list.rows[list.filled++] = row;
    });
    this.rowsOfState = new Map([...rowsOfState].map(([s, { rows }]) => [this.strings.state[s]!, rows]));
  }

  /** The row of a ZIP code, or -1. */
  rowOf(zip: string): number {
    const n = zipNumber(zip);
    return n < 0 ? -1 : this.rowOfZip[n]! - 1;
  }

  record(row: number): ZipRecord {
    const s = this.strings;
    return {
      zip: this.zipAt(row),
      city: s.city[this.city[row]!]!,
      stateCode: s.state[this.state[row]!]!,
      stateName: s.stateName[this.state[row]!]!,
      county: s.county[this.county[row]!]!,
      countyFips: s.countyFips[this.countyFips[row]!]!,
      lat: this.lat[row]!,
      lng: this.lng[row]!,
      timezone: s.zone[this.zone[row]!]!,
      lastUpdated: s.updated[this.updated[row]!]!,
    };
  }

  /** The ZIP code of a row, as five digits. */
  zipAt(row: number): string {
    const n = this.codes[row]!;
    return n >= 10000 ? String(n) : String(n).padStart(5, '0');
  }

  cityAt(row: number): string {
    return this.strings.city[this.city[row]!]!;
  }

  stateCodeAt(row: number): string {
    return this.strings.state[this.state[row]!]!;
  }

  countyAt(row: number): string {
    return this.strings.county[this.county[row]!]!;
  }

  /** `limit` of a state's records after `offset`, in ZIP order. */
  statePage(stateCode: string, offset: number, limit: number): ZipRecord[] {
    const rows = this.rowsOfState.get(stateCode);
    if (!rows) return [];
    const page: ZipRecord[] = [];
    for (let i = offset, end = Math.min(rows.length, offset + limit); i < end; i++) page.push(this.record(rows[i]!));
    return page;
  }
}

/** 0–99999 for a five-digit code, else -1. */
function zipNumber(zip: string): number {
  if (zip.length !== 5) return -1;
  let n = 0;
  for (let i = 0; i < 5; i++) {
    const d = zip.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}
