/**
 * The ZIP lookup schema the peers serve in `npm run bench` (stock Yoga, mercurius + graphql-jit):
 * Pothos over one prepared better-sqlite3 statement, written as a user would from the two
 * projects' READMEs. Plain JavaScript, so the peers start as plain node, as ours does.
 */
import Database from 'better-sqlite3';
import SchemaBuilder from '@pothos/core';

export function zipSchema(dbPath) {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  const byZip = db.prepare(
    `SELECT z.zip, z.city, z.state_code AS stateCode, s.state_name AS stateName, z.county, z.county_fips AS countyFips,
       z.lat, z.lng, z.last_updated AS lastUpdated FROM zips z JOIN states s USING (state_code) WHERE z.zip = ?`,
  );
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
      zip: t.field({ type: ZipRef, nullable: true, args: { zip: t.arg.string({ required: true }) }, resolve: (_r, { zip }) => byZip.get(zip) ?? null }),
    }),
  });
  return builder.toSchema();
}
