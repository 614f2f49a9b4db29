/**
 * Stock graphql-yoga + Pothos for `npm run bench`: the same ZIP lookup as a GraphQL query, over the
 * same database, as a user would write it from the two projects' READMEs. No limits, no keys.
 */
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import SchemaBuilder from '@pothos/core';
import { createYoga } from 'graphql-yoga';

interface Zip {
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

const db = new Database(process.env.DB_PATH!, { readonly: true, fileMustExist: true });
const byZip = db.prepare<[string], Zip>(
  `SELECT z.zip, z.city, z.state_code AS stateCode, s.state_name AS stateName, z.county, z.county_fips AS countyFips,
     z.lat, z.lng, z.last_updated AS lastUpdated FROM zips z JOIN states s USING (state_code) WHERE z.zip = ?`,
);

const builder = new SchemaBuilder({});
const ZipRef = builder.objectRef<Zip>('Zip').implement({
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

const yoga = createYoga({ schema: builder.toSchema(), logging: false });
createServer(yoga).listen(Number(process.env.PORT), '127.0.0.1');
