import { RESORT_FIELDS, SQL_TYPES } from '../../domain/resort-fields.js';

/**
 * The database schema. A database built from another text of it (its hash is part of the sources'
 * fingerprint, db/fingerprint.ts) or another SCHEMA_VERSION is rebuilt (atomically) at the next
 * start, so nobody runs on a stale layout.
 */
export const SCHEMA_VERSION = 9;

/** Daily weather columns, shared by the served table and a sync run's staging table. */
const DAILY_WEATHER_COLUMNS = `
  resort_id                 TEXT NOT NULL REFERENCES resorts(id),
  date                      TEXT NOT NULL,
  source                    TEXT NOT NULL,
  base_temp_min             REAL NOT NULL,
  base_temp_max             REAL NOT NULL,
  summit_temp_min           REAL NOT NULL,
  summit_temp_max           REAL NOT NULL,
  precipitation_mm          REAL NOT NULL,
  precipitation_probability INTEGER NOT NULL,
  snowfall_base_cm          REAL NOT NULL,
  snowfall_summit_cm        REAL NOT NULL,
  snow_depth_base_cm        REAL NOT NULL,
  snow_depth_summit_cm      REAL NOT NULL,
  season_snowfall_cm        REAL NOT NULL,
  wind_speed_base_kmh       REAL NOT NULL,
  wind_gust_base_kmh        REAL NOT NULL,
  wind_speed_summit_kmh     REAL NOT NULL,
  wind_gust_summit_kmh      REAL NOT NULL,
  wind_direction_deg        INTEGER NOT NULL,
  snow_line_m               INTEGER NOT NULL,
  -- Mid-mountain (halfway between base and summit): temperatures, snowfall, depth, wind.
  mid_temp_min              REAL NOT NULL,
  mid_temp_max              REAL NOT NULL,
  snowfall_mid_cm           REAL NOT NULL,
  snow_depth_mid_cm         REAL NOT NULL,
  wind_speed_mid_kmh        REAL NOT NULL,
  wind_gust_mid_kmh         REAL NOT NULL,
  -- Summit snowfall per local hour (24 comma-separated cm) when the provider gives hours;
  -- NULL: split from the daily total by the generator's rule (src/domain/weather/hourly.ts).
  snowfall_summit_hourly    TEXT,
  -- When the provider's answer behind this row was fetched (ISO 8601, UTC): a report's syncedAt.
  synced_at                 TEXT NOT NULL`;

export const SCHEMA_SQL = `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE states (
  state_code TEXT PRIMARY KEY,
  state_name TEXT NOT NULL,
  fips       TEXT NOT NULL,
  zip_count  INTEGER NOT NULL
) STRICT;

CREATE TABLE zips (
  zip          TEXT PRIMARY KEY,
  city         TEXT NOT NULL,
  state_code   TEXT NOT NULL REFERENCES states(state_code),
  county       TEXT NOT NULL,
  county_fips  TEXT NOT NULL,
  lat          REAL NOT NULL,
  lng          REAL NOT NULL,
  -- IANA zone from the coordinates (geo-tz), e.g. America/Denver.
  timezone     TEXT NOT NULL,
  -- ISO 8601 timestamp of the dataset's publication.
  last_updated TEXT NOT NULL,
  -- The city as searches match it (src/domain/city-key.ts): "saint louis" for "St. Louis".
  city_key     TEXT NOT NULL
) STRICT;

CREATE INDEX zips_by_state ON zips(state_code, zip);
CREATE INDEX zips_by_city_key ON zips(city_key, state_code, zip);

CREATE TABLE resorts (
  id               TEXT PRIMARY KEY,
  name             TEXT NOT NULL,
  country_code     TEXT NOT NULL,
  country_name     TEXT NOT NULL,
  region           TEXT NOT NULL,
  continent        TEXT NOT NULL,
  lat              REAL NOT NULL,
  lng              REAL NOT NULL,
  base_elevation   INTEGER NOT NULL,
  summit_elevation INTEGER NOT NULL,
  lift_count       INTEGER NOT NULL,
  trail_count      INTEGER NOT NULL,
  -- IANA zone from the coordinates (geo-tz): the resort's local days.
  timezone         TEXT NOT NULL,
  -- Descriptive facts (src/domain/resort-fields.ts), NULL when unknown.
${Object.values(RESORT_FIELDS)
  .map((f) => `  ${f.column} ${SQL_TYPES[f.type]},`)
  .join('\n')}
  inventory_source TEXT NOT NULL,
  -- 'curated' (data/resorts.json) or 'imported' (npm run import).
  origin           TEXT NOT NULL DEFAULT 'curated'
) STRICT;

-- Each resort time zone's offsets from UTC, 1970–2070, as the instants they change at
-- (src/domain/zone-offsets.ts): computed with Intl when the database is built or an import adds a
-- zone, so the server knows local time without loading ICU's zone data. The row with a NULL
-- offset marks where the span ends.
CREATE TABLE zone_offsets (
  zone           TEXT NOT NULL,
  starts_at      INTEGER NOT NULL,
  offset_minutes INTEGER,
  PRIMARY KEY (zone, starts_at)
) STRICT, WITHOUT ROWID;

-- Where an imported ski area came from, so a re-import finds the same resort (and slug) again.
CREATE TABLE resort_sources (
  source    TEXT NOT NULL,
  source_id TEXT NOT NULL,
  resort_id TEXT NOT NULL REFERENCES resorts(id),
  PRIMARY KEY (source, source_id)
) STRICT;
CREATE INDEX resort_sources_by_resort ON resort_sources(resort_id);

CREATE INDEX resorts_by_name ON resorts(name COLLATE NOCASE);
CREATE INDEX resorts_by_country ON resorts(country_code);

CREATE TABLE trails (
  id              TEXT PRIMARY KEY,
  resort_id       TEXT NOT NULL REFERENCES resorts(id),
  ordinal         INTEGER NOT NULL,
  name            TEXT NOT NULL,
  difficulty      TEXT NOT NULL,
  rating          TEXT NOT NULL,
  length_m        INTEGER NOT NULL,
  open_threshold  REAL NOT NULL,
  groom_threshold REAL NOT NULL,
  source          TEXT NOT NULL
) STRICT;

CREATE INDEX trails_by_resort ON trails(resort_id, ordinal);

CREATE TABLE lifts (
  id                TEXT PRIMARY KEY,
  resort_id         TEXT NOT NULL REFERENCES resorts(id),
  ordinal           INTEGER NOT NULL,
  name              TEXT NOT NULL,
  type              TEXT NOT NULL,
  seats             INTEGER,
  capacity_per_hour INTEGER,
  open_threshold    REAL NOT NULL,
  source            TEXT NOT NULL
) STRICT;

CREATE INDEX lifts_by_resort ON lifts(resort_id, ordinal);

-- Daily weather and snow per resort: observed days and forecast days, written by a provider.
CREATE TABLE daily_weather (
${DAILY_WEATHER_COLUMNS},
  PRIMARY KEY (resort_id, date)
) STRICT, WITHOUT ROWID;

CREATE INDEX daily_weather_by_date ON daily_weather(date);

-- API keys: only the SHA-256 of a key is stored; the key itself is shown once, at creation.
CREATE TABLE api_keys (
  id                  INTEGER PRIMARY KEY,
  name                TEXT NOT NULL UNIQUE,
  plan                TEXT NOT NULL,
  key_hash            TEXT NOT NULL UNIQUE,
  created_at          TEXT NOT NULL,
  revoked_at          TEXT,
  -- Who revoked it: 'operator' (npm run keys; for good) or 'environment' (a key of API_KEYS no
  -- server names any more; active again when one does). NULL for a key revoked before it was kept.
  revoked_by          TEXT CHECK (revoked_by IN ('operator', 'environment')),
  monthly_quota       INTEGER NOT NULL,
  rate_per_second     INTEGER NOT NULL,
  -- Space-separated scopes beyond reading: 'admin' may start sync runs (and anything else that writes).
  scopes              TEXT NOT NULL DEFAULT '',
  -- Who made it: 'cli' (npm run keys), 'first-key' (the server's first start), 'env' (API_KEYS,
  -- API_ADMIN_KEYS: retired at a start once no server's environment names it).
  origin              TEXT NOT NULL DEFAULT 'cli' CHECK (origin IN ('cli', 'first-key', 'env')),
  -- Streams (SSE, multipart, WebSocket subscriptions) it may hold at once; NULL: STREAMS_PER_KEY.
  streams             INTEGER CHECK (streams IS NULL OR streams >= 1)
) STRICT;

CREATE TABLE key_usage (
  key_id   INTEGER NOT NULL REFERENCES api_keys(id),
  month    TEXT NOT NULL,
  requests INTEGER NOT NULL,
  PRIMARY KEY (key_id, month)
) STRICT, WITHOUT ROWID;

-- Sync runs, newest last; a run still RUNNING at start-up was interrupted and is marked FAILED.
CREATE TABLE sync_runs (
  id               INTEGER PRIMARY KEY,
  trigger          TEXT NOT NULL,
  provider         TEXT NOT NULL,
  started_at       TEXT NOT NULL,
  finished_at      TEXT,
  status           TEXT NOT NULL,
  resorts_total    INTEGER NOT NULL,
  resorts_updated  INTEGER NOT NULL DEFAULT 0,
  resorts_failed   INTEGER NOT NULL DEFAULT 0,
  error            TEXT
) STRICT;

-- What a run fetched, kept apart until the run publishes it in one transaction.
CREATE TABLE sync_staging (
  run_id INTEGER NOT NULL,
${DAILY_WEATHER_COLUMNS}
) STRICT;
CREATE INDEX sync_staging_by_run ON sync_staging(run_id);

CREATE TABLE sync_staging_lifts (
  run_id    INTEGER NOT NULL,
  resort_id TEXT NOT NULL,
  ordinal   INTEGER NOT NULL,
  name      TEXT NOT NULL,
  status    TEXT NOT NULL
) STRICT;

-- Live lift status from a lift provider (Liftie), replacing generated lifts where present.
CREATE TABLE live_lifts (
  resort_id  TEXT NOT NULL REFERENCES resorts(id),
  ordinal    INTEGER NOT NULL,
  name       TEXT NOT NULL,
  status     TEXT NOT NULL,
  source     TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (resort_id, ordinal)
) STRICT;
`;

/**
 * Tables that hold what users and operators created, not what the build derives from sources:
 * a rebuild copies them from the previous database, so no key or usage count is ever lost.
 */
export const PRESERVED_TABLES = ['api_keys', 'key_usage', 'sync_runs'] as const;

/** The meta row that says where this database's server keeps its keys: 'sqlite', or 'redis' (a replica). */
export const KEY_STORE_META = 'keys.store';
/** meta's key for the requests a replica answered while Redis was away and could not add there before it stopped (JSON). */
export const UNSENT_USAGE_META = 'keys.unsentRedisUsage';
