import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { graphql } from './gql/index.js';
import { getJson, gql, startTestServer } from './helpers/server.js';

let app: RunningApp;
beforeAll(async () => {
  app = await startTestServer({ countStatements: true });
});
afterAll(() => app.close());

const ZipQuery = graphql(`
  query TestZip($zip: String!) {
    zip(zip: $zip) {
      zip city stateCode stateName county countyFips lat lng timezone lastUpdated
      state { stateCode stateName zipCount }
      nearby(radiusMiles: 5, limit: 3) { zip distanceMiles }
    }
  }
`);

const NearbyQuery = graphql(`
  query TestNearby($zip: String!, $radiusMiles: Float, $limit: Int) {
    nearbyZips(zip: $zip, radiusMiles: $radiusMiles, limit: $limit) {
      center { zip lat lng }
      radiusMiles
      results { zip city stateCode county lat lng distanceMiles }
    }
  }
`);

const StateQuery = graphql(`
  query TestState($code: String!, $limit: Int, $offset: Int) {
    state(code: $code) { stateCode stateName zipCount zipcodes(limit: $limit, offset: $offset) { zip } }
  }
`);

const CityQuery = graphql(`
  query TestCity($name: String!, $state: String) {
    city(name: $name, state: $state) { city stateCode count zipcodes { zip stateCode } }
  }
`);

const TypenameQuery = graphql(`
  query TestTypename { __typename }
`);

/** Statements a request costs before any resolver runs (the API key check and usage count). */
async function baseline(): Promise<number> {
  const before = app.statementCount();
  await gql(app, TypenameQuery);
  return app.statementCount() - before;
}

const StatsQuery = graphql(`
  query TestStats { zipStats { totalZips totalStates } states { stateCode } }
`);

/** Touches every state, hundreds of ZIPs, their states and their neighbours' full records. */
const WideQuery = graphql(`
  query TestWide($limit: Int) {
    states {
      stateCode
      zipcodes(limit: $limit) {
        zip
        state { stateName zipCount }
        nearby(radiusMiles: 10, limit: 3) { zip details { countyFips state { fips } } }
      }
    }
  }
`);

describe('GraphQL ZIP queries', () => {
  it('Query.zip returns the record, its state and neighbours', async () => {
    const r = await gql(app, ZipQuery, { zip: '90210' });
    expect(r.errors).toBeUndefined();
    const z = r.data!.zip!;
    expect(z).toMatchObject({ city: 'Beverly Hills', countyFips: '06037', state: { stateCode: 'CA', stateName: 'California' } });
    expect(z.nearby).toHaveLength(3);
    expect(z.nearby!.map((n) => n.zip)).not.toContain('90210');
  });

  it('answers exactly what the REST path answers', async () => {
    const rest = await getJson(app, '/api/zip/10001/nearby?radiusMiles=7&limit=20');
    const r = await gql(app, NearbyQuery, { zip: '10001', radiusMiles: 7, limit: 20 });
    expect(r.data!.nearbyZips).toEqual(rest.body);
    const restZip = await getJson(app, '/api/zip/10001');
    const gz = await gql(app, ZipQuery, { zip: '10001' });
    const { state: _s, nearby: _n, ...record } = gz.data!.zip!;
    expect(record).toEqual(restZip.body);
  });

  it('uses the REST bounds and messages, with extensions.code', async () => {
    const bad = await gql(app, NearbyQuery, { zip: '10001', radiusMiles: 201, limit: 0 });
    expect(bad.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(bad.errors![0]!.message).toBe('radiusMiles must be <= 200; limit must be >= 1');
    const rest = await getJson(app, '/api/zip/10001/nearby?radiusMiles=201&limit=0');
    expect(rest.body.detail).toBe(bad.errors![0]!.message);
    expect(bad.errors![0]!.extensions!.errors).toEqual(
      rest.body.errors.map((e: object) => ({ ...e, value: (e as { value: string }).value === '201' ? 201 : 0 })),
    );

    const malformed = await gql(app, ZipQuery, { zip: '123' });
    expect(malformed.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    const missing = await gql(app, ZipQuery, { zip: '00000' });
    expect(missing.errors![0]!.extensions!.code).toBe('NOT_FOUND');
    expect(missing.data!.zip).toBeNull();
    const state = await gql(app, StateQuery, { code: 'zz' });
    expect(state.errors![0]!.extensions!.code).toBe('NOT_FOUND');
    const paging = await gql(app, StateQuery, { code: 'ca', limit: 1001 });
    expect(paging.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
  });

  it('Query.state pages, Query.city filters, Query.zipStats counts', async () => {
    const s = await gql(app, StateQuery, { code: 'de', limit: 5, offset: 2 });
    expect(s.data!.state).toMatchObject({ stateCode: 'DE', stateName: 'Delaware' });
    expect(s.data!.state!.zipcodes).toHaveLength(5);
    const c = await gql(app, CityQuery, { name: 'PORTLAND', state: 'me' });
    expect(c.data!.city).toMatchObject({ city: 'Portland', stateCode: 'ME' });
    expect(c.data!.city!.zipcodes.length).toBeGreaterThan(0);
    expect(c.data!.city!.zipcodes.every((z) => z.stateCode === 'ME')).toBe(true);
    const st = await gql(app, StatsQuery);
    expect(st.data!.zipStats!.totalStates).toBe(51);
    expect(st.data!.states).toHaveLength(51);
  });

  it('serves /v1/graphql as well', async () => {
    const r = await gql(app, StatsQuery, undefined, '/v1/graphql');
    expect(r.data!.zipStats!.totalStates).toBe(51);
  });

  it('runs a constant number of SQL statements however many ZIPs and states a query touches', async () => {
    const count = async (limit: number) => {
      const before = app.statementCount();
      const r = await gql(app, WideQuery, { limit });
      expect(r.errors).toBeUndefined();
      const touched = r.data!.states!.reduce((n, s) => n + s.zipcodes!.length, 0);
      return { statements: app.statementCount() - before, touched };
    };
    // The first such query reads the ZIP table into memory (its neighbours need the spatial index).
    await count(1);
    const small = await count(2);
    const large = await count(40);
    const keyCheck = await baseline();
    expect(small.touched).toBe(51 * 2);
    expect(large.touched).toBeGreaterThan(51 * 39);
    // As the README says: nothing beyond what the key check costs (ZIP records, each state's
    // pages, neighbours and states come from memory once the table is there, as it is here).
    expect(large.statements).toBe(small.statements);
    expect(large.statements - keyCheck).toBe(0);
  });

  it('serves GraphiQL to a browser', async () => {
    const r = await fetch(`${app.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(r.status).toBe(200);
    expect(await r.text()).toMatch(/graphiql/i);
  });
});
