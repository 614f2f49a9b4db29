/**
 * The ZIP lookup schema the peers serve in `npm run bench` (stock Yoga, mercurius + graphql-jit):
 * Pothos, written as a user would from the two projects' READMEs, over one of two data paths
 * (PEER_DATA):
 * - `memory` (the default): every ZIP record in a Map, read once at start, with its state's name —
 *   the data path our server has (its ZIP table is in memory), so the row measures the GraphQL
 *   server and not the data path;
 * - `sqlite`: one prepared single-table lookup per request (the state's name from a Map of the
 *   51), as a user would first write it.
 * Plain JavaScript, so the peers start as plain node, as ours does.
 */
import Database from 'better-sqlite3';
import SchemaBuilder from '@pothos/core';

const COLUMNS = 'zip, city, state_code AS stateCode, county, county_fips AS countyFips, lat, lng, last_updated AS lastUpdated';

export function zipSchema(dbPath, data = process.env.PEER_DATA ?? 'memory') {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  const stateNames = new Map(
    db
      .prepare('SELECT state_code AS code, state_name AS name FROM states')
      .all()
      .map((s) => [s.code, s.name]),
  );
  const withState = (row) => (row ? { ...row, stateName: stateNames.get(row.stateCode) } : null);
  let lookup;
  if (data === 'memory') {
    const records = new Map(
      db
        .prepare(`SELECT ${COLUMNS} FROM zips`)
        .all()
        .map((row) => [row.zip, withState(row)]),
    );
    db.close();
    lookup = (zip) => records.get(zip) ?? null;
  } else {
    const byZip = db.prepare(`SELECT ${COLUMNS} FROM zips WHERE zip = ?`);
    lookup = (zip) => withState(byZip.get(zip));
  }
  const builder = new SchemaBuilder({});
  const ZipRef = builder.objectRef('Zip').implement({
    fields: (t) => ({
      zip: t.exposeString('zip'),
      city: t.exposeString('city'),
      stateCode: t.exposeString('stateCode'),
      stateName: t.exposeString('stateName'),
      county: t.exposeString('county'),
      countyFips: t.exposeString('countyFips'),
      lat: t.exposeFloat('lat'),
      lng: t.exposeFloat('lng'),
      lastUpdated: t.exposeString('lastUpdated'),
    }),
  });
  builder.queryType({
    fields: (t) => ({
      zip: t.field({ type: ZipRef, nullable: true, args: { zip: t.arg.string({ required: true }) }, resolve: (_r, { zip }) => lookup(zip) }),
    }),
  });
  return builder.toSchema();
}
