/**
 * The ZIP lookup schema the peers serve in `npm run bench` (stock Yoga, mercurius + graphql-jit):
 * Pothos, written as a user would from the two projects' READMEs, over one of three data paths
 * (PEER_DATA):
 * - `table` (the default): our server's own ZIP table in memory (src/data/repositories/
 *   zip-table.ts, which the bench compiles for the peers: ZIP_TABLE_MODULE), filled by the same
 *   statement, a record made from its columns per lookup as ours makes it — the data path our
 *   server has, so the row measures the GraphQL server and not the data path;
 * - `objects`: every ZIP record as an object in a Map, read once at start — no record made per
 *   lookup, for ~10 MiB more heap than the columns (BENCHMARKS.md, design figures: ZIP table);
 * - `sqlite`: one prepared single-table lookup per request (the state's name from a Map of the
 *   51), as a user would first write it.
 * Plain JavaScript, so the peers start as plain node, as ours does.
 */
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import SchemaBuilder from '@pothos/core';

const COLUMNS = 'zip, city, state_code AS stateCode, county, county_fips AS countyFips, lat, lng, last_updated AS lastUpdated';

export async function zipSchema(dbPath, data = process.env.PEER_DATA ?? 'table') {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  const stateNames = new Map(
    db
      .prepare('SELECT state_code AS code, state_name AS name FROM states')
      .all()
      .map((s) => [s.code, s.name]),
  );
  const withState = (row) => (row ? { ...row, stateName: stateNames.get(row.stateCode) } : null);
  let lookup;
  if (data === 'table') {
    if (!process.env.ZIP_TABLE_MODULE) throw new Error('ZIP_TABLE_MODULE must name the compiled ZIP table module (npm run bench makes it)');
    const { ZipTable, ZIP_TABLE_ROWS_SQL } = await import(pathToFileURL(process.env.ZIP_TABLE_MODULE).href);
    const count = db.prepare('SELECT count(*) FROM zips').pluck().get();
    const table = new ZipTable(count, db.prepare(ZIP_TABLE_ROWS_SQL).raw().iterate(), (code) => stateNames.get(code));
    db.close();
    lookup = (zip) => {
      const row = table.rowOf(zip);
      return row >= 0 ? table.record(row) : null;
    };
  } else if (data === 'objects') {
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
