import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverAudits } from 'graphql-http';
import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql } from '@apollo/client';
import { Client, cacheExchange, fetchExchange, gql as urqlGql } from '@urql/core';
import type { RunningApp } from '../src/app/start.js';
import { clockAt, getJson, startTestServer, TEST_KEY } from './helpers/server.js';

/**
 * Clients nobody here wrote, against the bundle npm start runs: graphql-http's conformance audits
 * of the GraphQL-over-HTTP spec, Apollo Client (normalized cache, `__typename` on every selection
 * as it adds by default) and urql. Their answers are checked against the REST answers for the
 * same things, so a client sees the same data over either interface.
 */

let app: RunningApp;
beforeAll(async () => {
  app = await startTestServer({ privateDb: true, now: clockAt('2027-01-15T12:00:00Z') });
});
afterAll(async () => {
  await app?.close();
});

const withKey: typeof fetch = (input, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set('x-api-key', TEST_KEY);
  return fetch(input, { ...init, headers });
};

describe("graphql-http's server audits (GraphQL over HTTP)", () => {
  it('every audit passes: no error, no warning', async () => {
    const audits = serverAudits({ url: `${app.url}/graphql`, fetchFn: withKey });
    expect(audits.length).toBeGreaterThan(50);
    const results = [];
    for (const audit of audits) results.push({ ...(await audit.fn()), name: audit.name });
    const notOk = results.filter((r) => r.status !== 'ok').map((r) => `${r.status}: ${r.name}${'reason' in r ? ` (${r.reason})` : ''}`);
    expect(notOk).toEqual([]);
  });
});

/** The things a frontend asks for, each with its GraphQL document and what REST says of it. */
const ZIP_WITH_STATE = `query ZipWithState { zip(zip: "90210") { zip city county lat lng timezone state { stateCode stateName zipCount } } }`;
const RESORTS_NEAR_ZIP = `query ResortsNearZip { zip(zip: "81657") { zip nearbyResorts(radiusMiles: 60, limit: 5) { distanceMiles resort { id name conditions { status snowDepthBase newSnow24h openTrails totalTrails } } } } }`;
const RESORT_PAGE = `query ResortPage { resorts(filter: { country: "US" }, paging: { limit: 5, offset: 5 }) { total limit offset resorts { id name region conditions { status snowDepthBase } } } }`;
const RESORT_WITH_INVENTORY = `query ResortWithInventory { resort(id: "vail") { id name trails { id name difficulty status length } lifts { id name type status seats } } }`;
const HISTORY = `query History { resort(id: "vail") { id history(days: 7, years: 2, radiusKm: 5) { from to current { snowfall snowDepth } baseline { snowfall snowDepth } daily { date values { snowfall tempMax } } } } }`;

type Data = Record<string, any>;

/** What each query's answer must equal, from the REST paths for the same things. */
async function expectAgreesWithRest(name: string, data: Data): Promise<void> {
  const rest = async (path: string) => {
    const r = await getJson(app, path);
    expect(r.status, path).toBe(200);
    return r.body;
  };
  switch (name) {
    case 'ZipWithState': {
      const zip = await rest('/api/zip/90210');
      const states = (await rest('/api/states')) as Data[];
      expect(data.zip).toMatchObject({ zip: zip.zip, city: zip.city, county: zip.county, lat: zip.lat, lng: zip.lng, timezone: zip.timezone });
      expect(data.zip.state).toMatchObject(states.find((s) => s.stateCode === zip.stateCode)!);
      return;
    }
    case 'ResortsNearZip': {
      const near = data.zip.nearbyResorts as Data[];
      expect(near.length).toBeGreaterThan(0);
      for (const n of near) {
        const detail = await rest(`/api/resorts/${n.resort.id}`);
        expect(n.resort.name).toBe(detail.name);
        expect(n.resort.conditions.snowDepthBase).toBe(detail.snow.depthBase);
        const summary = (await rest(`/api/resorts?q=${encodeURIComponent(n.resort.id)}&limit=50`)).resorts.find((r: Data) => r.id === n.resort.id);
        expect(n.resort.conditions).toMatchObject({
          status: summary.conditions.status,
          snowDepthBase: summary.conditions.snowDepthBase,
          newSnow24h: summary.conditions.newSnow24h,
          openTrails: summary.conditions.openTrails,
          totalTrails: summary.conditions.totalTrails,
        });
      }
      return;
    }
    case 'ResortPage': {
      const page = await rest('/api/resorts?country=US&limit=5&offset=5');
      expect(data.resorts).toMatchObject({ total: page.total, limit: 5, offset: 5 });
      expect(data.resorts.resorts.map((r: Data) => [r.id, r.name, r.region, r.conditions.status, r.conditions.snowDepthBase])).toEqual(
        page.resorts.map((r: Data) => [r.id, r.name, r.region, r.conditions.status, r.conditions.snowDepthBase]),
      );
      return;
    }
    case 'ResortWithInventory': {
      const trails = await rest('/api/resorts/vail/trails');
      const lifts = await rest('/api/resorts/vail/lifts');
      expect(data.resort.trails.length).toBeGreaterThan(0);
      expect(data.resort.trails.map(({ __typename: _t, ...t }: Data) => t)).toEqual(
        trails.trails.map((t: Data) => ({ id: t.id, name: t.name, difficulty: t.difficulty, status: t.status, length: t.length })),
      );
      expect(data.resort.lifts.map(({ __typename: _t, ...l }: Data) => l)).toEqual(
        lifts.lifts.map((l: Data) => ({ id: l.id, name: l.name, type: l.type, status: l.status, seats: l.seats })),
      );
      return;
    }
    case 'History': {
      const h = await rest('/api/resorts/vail/history?days=7&years=2&radiusKm=5');
      expect(data.resort.history).toMatchObject({ from: h.window.from, to: h.window.to });
      expect(data.resort.history.current).toMatchObject({ snowfall: h.summary.current.snowfall, snowDepth: h.summary.current.snowDepth });
      expect(data.resort.history.baseline).toMatchObject({ snowfall: h.summary.baseline.snowfall, snowDepth: h.summary.baseline.snowDepth });
      expect(data.resort.history.daily).toHaveLength(7);
      expect(data.resort.history.daily.map((d: Data) => [d.date, d.values.snowfall, d.values.tempMax])).toEqual(
        h.daily.map((d: Data) => [d.date, d.snowfall, d.tempMax]),
      );
      return;
    }
  }
  throw new Error(`no REST counterpart for ${name}`);
}

const QUERIES = {
  ZipWithState: ZIP_WITH_STATE,
  ResortsNearZip: RESORTS_NEAR_ZIP,
  ResortPage: RESORT_PAGE,
  ResortWithInventory: RESORT_WITH_INVENTORY,
  History: HISTORY,
};

describe('Apollo Client (InMemoryCache, HttpLink, __typename added by default)', () => {
  const client = () => new ApolloClient({ link: new HttpLink({ uri: `${app.url}/graphql`, headers: { 'x-api-key': TEST_KEY } }), cache: new InMemoryCache() });

  it.each(Object.entries(QUERIES))('%s: answered, and equal to the REST answers', async (name, query) => {
    const result = await client().query({ query: apolloGql(query), fetchPolicy: 'network-only' });
    expect(result.error).toBeUndefined();
    const data = result.data as Data;
    expect(Object.values(data)[0].__typename).toMatch(/^(Zip|Resort|ResortPage)$/);
    await expectAgreesWithRest(name, data);
  });
});

describe('urql (core client, cache and fetch exchanges)', () => {
  const client = () =>
    new Client({ url: `${app.url}/graphql`, exchanges: [cacheExchange, fetchExchange], fetchOptions: { headers: { 'x-api-key': TEST_KEY } } });

  it.each(Object.entries(QUERIES))('%s: answered, and equal to the REST answers', async (name, query) => {
    const result = await client().query(urqlGql(query), {}).toPromise();
    expect(result.error).toBeUndefined();
    // urql's document cache adds __typename to every selection too.
    expect(Object.values(result.data as Data)[0].__typename).toMatch(/^(Zip|Resort|ResortPage)$/);
    await expectAgreesWithRest(name, result.data as Data);
  });
});
