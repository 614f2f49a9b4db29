/**
 * Column lists of the tables more than one module reads or writes, declared once: each maps the
 * domain's camelCase field to its SQL column. Repositories, the build, imports and sync runs take
 * their SELECT lists and INSERT statements from here, so a column cannot be added in one place
 * and forgotten in another.
 */

import { RESORT_FIELDS } from '../../domain/resort-fields.js';

type Columns = Readonly<Record<string, string>>;

export interface Table<C extends Columns> {
  name: string;
  columns: C;
  /** `col AS field, …` (optionally prefixed with a table alias). */
  select(alias?: string): string;
  /**
   * `INSERT [OR …] INTO name (cols) VALUES (?, …)`, bound positionally with `values(row)` (named
   * parameters cost more than twice as much per row). `extra` adds columns with SQL values (`?` for values
   * passed after the row's); `into` writes another table of the same layout (a staging table).
   */
  insert(options?: { verb?: 'INSERT' | 'INSERT OR REPLACE' | 'INSERT OR IGNORE'; extra?: Record<string, string>; into?: string }): string;
  /** A row's values in column order, for a statement made by `insert` (absent fields are NULL). */
  values(row: { readonly [F in keyof C]?: unknown }): unknown[];
  /** The column names, comma-separated, for INSERT … SELECT between tables of the same layout. */
  list: string;
  /**
   * The object of a raw row (a statement's `.raw()` values, in `select()`'s order), as one literal
   * of a fixed shape: every object shares one hidden class with its fields in the object. The
   * driver's row objects keep all but the first few fields in a separate array (a day of weather
   * took more than twice the memory that way).
   */
  fromRaw(row: readonly unknown[]): { [F in keyof C]: unknown };
}

function table<C extends Columns>(name: string, columns: C): Table<C> {
  const entries = Object.entries(columns);
  const fields = Object.keys(columns) as (keyof C)[];
  return {
    name,
    columns,
    select: (alias) =>
      entries.map(([field, col]) => (col === field ? `${alias ? `${alias}.` : ''}${col}` : `${alias ? `${alias}.` : ''}${col} AS ${field}`)).join(', '),
    insert: ({ verb = 'INSERT', extra = {}, into = name } = {}) => {
      const cols = [...entries.map(([, c]) => c), ...Object.keys(extra)];
      const values = [...entries.map(() => '?'), ...Object.values(extra)];
      return `${verb} INTO ${into} (${cols.join(', ')}) VALUES (${values.join(', ')})`;
    },
    values: (row) => fields.map((f) => row[f] ?? null),
    list: entries.map(([, c]) => c).join(', '),
    // Compiled once per table from the field names declared here: an object literal of all fields.
    fromRaw: new Function('r', `return { ${fields.map((f, i) => `${JSON.stringify(f)}: r[${i}]`).join(', ')} };`) as Table<C>['fromRaw'],
  };
}

export const RESORTS = table('resorts', {
  id: 'id',
  name: 'name',
  countryCode: 'country_code',
  countryName: 'country_name',
  region: 'region',
  continent: 'continent',
  lat: 'lat',
  lng: 'lng',
  baseElevation: 'base_elevation',
  summitElevation: 'summit_elevation',
  liftCount: 'lift_count',
  trailCount: 'trail_count',
  timezone: 'timezone',
  ...columnsOf(RESORT_FIELDS),
});

function columnsOf<F extends Record<string, { column: string }>>(fields: F): { [K in keyof F]: F[K]['column'] } {
  return Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, f.column])) as { [K in keyof F]: F[K]['column'] };
}

/** Inventory rows carry their position in the resort's list (`ordinal`) beside the domain facts. */
export const TRAILS = table('trails', {
  id: 'id',
  resortId: 'resort_id',
  ordinal: 'ordinal',
  name: 'name',
  difficulty: 'difficulty',
  rating: 'rating',
  lengthM: 'length_m',
  openThreshold: 'open_threshold',
  groomThreshold: 'groom_threshold',
  source: 'source',
});

export const LIFTS = table('lifts', {
  id: 'id',
  resortId: 'resort_id',
  ordinal: 'ordinal',
  name: 'name',
  type: 'type',
  seats: 'seats',
  capacityPerHour: 'capacity_per_hour',
  openThreshold: 'open_threshold',
  source: 'source',
});

/** Daily weather rows: the served table and a sync run's staging table share this layout. */
export const DAILY_WEATHER = table('daily_weather', {
  resortId: 'resort_id',
  date: 'date',
  source: 'source',
  baseTempMin: 'base_temp_min',
  baseTempMax: 'base_temp_max',
  summitTempMin: 'summit_temp_min',
  summitTempMax: 'summit_temp_max',
  precipitationMm: 'precipitation_mm',
  precipitationProbability: 'precipitation_probability',
  snowfallBaseCm: 'snowfall_base_cm',
  snowfallSummitCm: 'snowfall_summit_cm',
  snowDepthBaseCm: 'snow_depth_base_cm',
  snowDepthSummitCm: 'snow_depth_summit_cm',
  seasonSnowfallCm: 'season_snowfall_cm',
  windSpeedBaseKmh: 'wind_speed_base_kmh',
  windGustBaseKmh: 'wind_gust_base_kmh',
  windSpeedSummitKmh: 'wind_speed_summit_kmh',
  windGustSummitKmh: 'wind_gust_summit_kmh',
  windDirectionDeg: 'wind_direction_deg',
  snowLineM: 'snow_line_m',
  midTempMin: 'mid_temp_min',
  midTempMax: 'mid_temp_max',
  snowfallMidCm: 'snowfall_mid_cm',
  snowDepthMidCm: 'snow_depth_mid_cm',
  windSpeedMidKmh: 'wind_speed_mid_kmh',
  windGustMidKmh: 'wind_gust_mid_kmh',
  snowfallSummitHourly: 'snowfall_summit_hourly',
  syncedAt: 'synced_at',
});

export const ZIPS = table('zips', {
  zip: 'zip',
  city: 'city',
  stateCode: 'state_code',
  county: 'county',
  countyFips: 'county_fips',
  lat: 'lat',
  lng: 'lng',
  timezone: 'timezone',
  lastUpdated: 'last_updated',
});
