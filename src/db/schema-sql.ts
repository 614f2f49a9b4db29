/**
 * The database schema. Bump SCHEMA_VERSION with any change here: a database built with another
 * version is rebuilt (atomically) at the next start, so nobody runs on a stale layout.
 */
export const SCHEMA_VERSION = 1;

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
  last_updated TEXT NOT NULL
) STRICT;

CREATE INDEX zips_by_state ON zips(state_code, zip);
CREATE INDEX zips_by_city ON zips(city COLLATE NOCASE, state_code, zip);
`;
