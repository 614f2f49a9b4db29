import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import type { RunningApp } from '../src/app/start.js';
import { getJson, startTestServer, testDir, TEST_KEY } from './helpers/server.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ZIP = 'query Zip($zip: String!) { zip(zip: $zip) { zip city stateCode } }';
const STATUS = '{ syncStatus { state } }';

const post = (app: RunningApp, body: unknown, headers: Record<string, string> = {}) =>
  getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const get = (app: RunningApp, params: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const search = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  return getJson(app, `/graphql?${search}`, { headers });
};
const persisted = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(query) } });

/** The response cache's lookups so far, from /metrics. */
async function cacheLookups(app: RunningApp): Promise<{ hit: number; miss: number }> {
  const text = (await getJson(app, '/metrics')).body as string;
  const read = (result: string) => Number(text.match(new RegExp(`^response_cache_lookups\\{result="${result}"\\} (\\d+)`, 'm'))?.[1] ?? NaN);
  return { hit: read('hit'), miss: read('miss') };
}

describe('automatic persisted queries (Apollo protocol)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestServer();
  });
  afterAll(() => app.close());

  it('a hash the server has not seen is PersistedQueryNotFound; with the text it runs and is kept; then the hash alone runs it, over POST and GET', async () => {
    const query = `${ZIP} # apq 1`;
    const first = await post(app, { extensions: persisted(query), variables: { zip: '90210' } });
    expect(first.body.errors).toEqual([
      expect.objectContaining({ message: 'PersistedQueryNotFound', extensions: expect.objectContaining({ code: 'PERSISTED_QUERY_NOT_FOUND' }) }),
    ]);
    expect(first.body.data).toBeUndefined();

    const register = await post(app, { query, extensions: persisted(query), variables: { zip: '90210' } });
    expect(register.status).toBe(200);
    expect(register.body.data).toEqual({ zip: { zip: '90210', city: 'Beverly Hills', stateCode: 'CA' } });

    const byHash = await post(app, { extensions: persisted(query), variables: { zip: '10001' } });
    expect(byHash.body.data).toEqual({ zip: { zip: '10001', city: 'New York', stateCode: 'NY' } });
    const overGet = await get(app, { extensions: persisted(query), variables: { zip: '10001' } });
    expect(overGet.status).toBe(200);
    expect(overGet.body.data).toEqual(byHash.body.data);
  });

  it('a text whose hash does not match is refused, and nothing is kept under that hash', async () => {
    const query = `${ZIP} # apq 2`;
    const wrong = await post(app, { query, extensions: persisted(`${query} `), variables: { zip: '90210' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0]).toMatchObject({ message: 'provided sha does not match query', extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH' } });
    const after = await post(app, { extensions: persisted(`${query} `), variables: { zip: '90210' } });
    expect(after.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('a document that does not validate is not kept', async () => {
    const query = '{ zip(zip: "90210") { noSuchField } }';
    const bad = await post(app, { query, extensions: persisted(query) });
    expect(bad.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const again = await post(app, { extensions: persisted(query) });
    expect(again.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('another version of the protocol, or a hash that is not one, is a clear error', async () => {
    const v2 = await post(app, { extensions: { persistedQuery: { version: 2, sha256Hash: sha256(ZIP) } } });
    expect(v2.status).toBe(400);
    expect(v2.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
    const notHex = await post(app, { extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } });
    expect(notHex.status).toBe(400);
    expect(notHex.body.errors[0].message).toMatch(/sha256Hash must be 64 lowercase hex digits/);
  });

  it("Apollo Client's PersistedQueryLink with GET for hashed queries: the hash, then the text once, then the hash alone from a new client", async () => {
    const calls: string[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const url = new URL(String(input));
      calls.push(
        `${init?.method ?? 'GET'} ${url.searchParams.has('query') || (init?.body && String(init.body).includes('"query"')) ? 'text' : 'hash'} ${res.status}`,
      );
      return res;
    };
    const client = () =>
      new ApolloClient({
        link: new PersistedQueryLink({ sha256, useGETForHashedQueries: true }).concat(
          new HttpLink({ uri: `${app.url}/graphql`, headers: { 'x-api-key': TEST_KEY }, fetch: recordingFetch }),
        ),
        cache: new InMemoryCache(),
      });
    const query = apolloGql`query ApqCity($zip: String!) { zip(zip: $zip) { zip city } }`;
    const first = await client().query({ query, variables: { zip: '80202' } });
    expect(first.data).toEqual({ zip: { __typename: 'Zip', zip: '80202', city: 'Denver' } });
    const second = await client().query({ query, variables: { zip: '80202' } });
    expect(second.data).toEqual(first.data);
    // Not found by hash over GET (400: Apollo Client accepts application/graphql-response+json),
    // sent with its text over POST, then found by hash over GET.
    expect(calls).toEqual(['GET hash 400', 'POST text 200', 'GET hash 200']);
  });
});

describe('GET answers are versions of the data', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestServer();
  });
  afterAll(() => app.close());

  it('a GET query has a strong ETag and revalidates: If-None-Match gives 304, and the second ask is served from the response cache', async () => {
    const params = { query: ZIP, variables: { zip: '05751' } };
    const before = await cacheLookups(app);
    const a = await get(app, params);
    expect(a.status).toBe(200);
    // ZIP data changes only with a rebuild: a client may keep it a day.
    expect(a.headers.get('cache-control')).toBe('private, max-age=86400, stale-while-revalidate=86400');
    const etag = a.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    // The answer is what the data decide, nothing of this request: the request id rides in its header.
    expect(a.body).toEqual({
      data: { zip: { zip: '05751', city: 'Killington', stateCode: 'VT' } },
      extensions: { cost: { requestedQueryCost: expect.any(Number) } },
    });
    expect(a.headers.get('x-request-id')).toMatch(/.+/);
    const b = await get(app, params);
    expect(b.headers.get('etag')).toBe(etag);
    expect(b.body).toEqual(a.body);
    const c = await get(app, params, { 'if-none-match': etag! });
    expect(c.status).toBe(304);
    expect(c.body).toBe('');
    const after = await cacheLookups(app);
    // A miss (an answer is stored the second time it is asked for), a miss that stores it, a hit.
    expect(after.miss - before.miss).toBe(2);
    expect(after.hit - before.hit).toBe(1);
  });

  it('other variables are another answer', async () => {
    const a = await get(app, { query: ZIP, variables: { zip: '05751' } });
    const b = await get(app, { query: ZIP, variables: { zip: '90210' } });
    expect(b.body.data.zip.city).toBe('Beverly Hills');
    expect(b.headers.get('etag')).not.toBe(a.headers.get('etag'));
  });

  it('answers that change from one request to the next (sync status) are never kept', async () => {
    const a = await get(app, { query: STATUS });
    expect(a.status).toBe(200);
    expect(a.headers.get('cache-control')).toBe('no-store');
    expect(a.headers.get('etag')).toBeNull();
  });

  it('a mutation over GET is 405 with Allow: POST, and runs nothing', async () => {
    const r = await get(app, { query: 'mutation { runSync { state } }' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect(r.body.errors[0].message).toMatch(/mutation operation from a POST request/);
    const status = await post(app, { query: STATUS });
    expect(status.body.data.syncStatus.state).not.toBe('RUNNING');
  });

  it('bad variables or extensions over GET are 400 naming the parameter', async () => {
    const r = await getJson(app, `/graphql?query=${encodeURIComponent(ZIP)}&variables=${encodeURIComponent('{zip:')}`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].message).toBe('The variables parameter is not valid JSON.');
    const list = await getJson(app, `/graphql?query=${encodeURIComponent(ZIP)}&extensions=${encodeURIComponent('[1]')}`);
    expect(list.status).toBe(400);
    expect(list.body.errors[0].message).toBe('The extensions parameter must be a JSON object.');
  });
});

describe('trusted documents (GRAPHQL_TRUSTED_DOCUMENTS, GRAPHQL_TRUSTED_ONLY=on)', () => {
  let app: RunningApp;
  const trusted = 'query TrustedZip($zip: String!) { zip(zip: $zip) { zip city } }';
  const id = sha256(trusted);
  beforeAll(async () => {
    const manifest = path.join(testDir('gateway-trusted-'), 'persisted-documents.json');
    writeFileSync(manifest, JSON.stringify({ [id]: trusted }));
    app = await startTestServer({ config: { trustedDocuments: { manifest, only: true } } });
  });
  afterAll(() => app.close());

  it('a document of the manifest runs by documentId (with or without sha256:), by its APQ hash, or by its text', async () => {
    for (const documentId of [id, `sha256:${id}`]) {
      const r = await get(app, { documentId, variables: { zip: '80202' } });
      expect(r.status, documentId).toBe(200);
      expect(r.body.data).toEqual({ zip: { zip: '80202', city: 'Denver' } });
    }
    const byPost = await post(app, { documentId: id, variables: { zip: '80202' } });
    expect(byPost.body.data.zip.city).toBe('Denver');
    const byHash = await post(app, { extensions: persisted(trusted), variables: { zip: '80202' } });
    expect(byHash.body.data.zip.city).toBe('Denver');
    const byText = await post(app, { query: trusted, variables: { zip: '80202' } });
    expect(byText.body.data.zip.city).toBe('Denver');
  });

  it('any other document is refused with an error naming the setting, and cannot be registered as a persisted query', async () => {
    const other = '{ zip(zip: "80202") { city } }';
    const r = await post(app, { query: other });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatchObject({ extensions: { code: 'PERSISTED_QUERY_ONLY' } });
    expect(r.body.errors[0].message).toMatch(/GRAPHQL_TRUSTED_ONLY=on/);
    expect(r.body.data).toBeUndefined();
    const register = await post(app, { query: other, extensions: persisted(other) });
    expect(register.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_ONLY');
    const byHash = await post(app, { extensions: persisted(other) });
    expect(byHash.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const unknownId = await get(app, { documentId: sha256(other) });
    expect(unknownId.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });
});

describe('costs a client can see (extensions.cost)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    // An hour-long window: two requests never straddle two windows.
    app = await startTestServer({ config: { costBudget: { unitsPerRequest: 2000, windowSeconds: 3600 }, apiKeysRate: 10 } });
  });
  afterAll(() => app.close());

  it('every POST answer carries the cost analysis figure and the key budget after it (throttleStatus)', async () => {
    const budget = 10 * 2000 * 3600;
    const one = await post(app, { query: ZIP, variables: { zip: '90210' } });
    const cost1 = one.body.extensions.cost.requestedQueryCost;
    expect(cost1).toBeGreaterThan(0);
    expect(one.body.extensions.cost.throttleStatus).toEqual({ maximumAvailable: budget, currentlyAvailable: budget - cost1, restoreRate: budget / 3600 });
    const many = await post(app, { query: '{ zipsNear(lat: 40.7506, lng: -73.9972, radiusMiles: 5, limit: 50) { zip distanceMiles } }' });
    const cost2 = many.body.extensions.cost.requestedQueryCost;
    expect(cost2).toBeGreaterThan(cost1);
    expect(many.body.extensions.cost.throttleStatus.currentlyAvailable).toBe(budget - cost1 - cost2);
  });

  it('answers served by Yoga (a request body our path leaves to it) carry it too', async () => {
    // A JSON body sent as application/graphql+json goes to Yoga.
    const r = await getJson(app, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/graphql+json' },
      body: JSON.stringify({ query: ZIP, variables: { zip: '90210' } }),
    });
    expect(r.body.data.zip.city).toBe('Beverly Hills');
    expect(r.body.extensions.cost).toEqual({
      requestedQueryCost: expect.any(Number),
      throttleStatus: expect.objectContaining({ maximumAvailable: 10 * 2000 * 3600 }),
    });
  });

  it('a query over the cost limits says what it would have cost', async () => {
    const r = await post(app, { query: '{ states { zipcodes(limit: 1000) { nearby(limit: 200) { details { state { zipcodes(limit: 1000) { zip } } } } } } }' });
    expect(r.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(r.body.extensions.cost.requestedQueryCost).toBeGreaterThan(250_000);
  });
});
