import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { expectProblem, getJson, startTestServer, testDir, TEST_KEY } from './helpers/server.js';
import { TRANSPORTS, type GqlAnswer, type Transport } from './helpers/transports.js';

/**
 * Every rule of /graphql on every way in: a matrix whose rows are the transports
 * (test/helpers/transports.ts: JSON POST, GET, application/graphql+json, application/graphql, SSE
 * and multipart over POST and GET, WebSocket, batch) and whose columns are the rules below. A new
 * transport is a row there, a new rule a describe here. Against the bundle npm start runs.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const PLAIN_KEY = 'szg_plain_key_without_admin_scope';
const ARBITRARY = '{ zip(zip: "90210") { city } }';
const TRUSTED = 'query TrustedZip { zip(zip: "05401") { city stateCode } }';

let app: RunningApp;
let trusted: RunningApp;
let prod: RunningApp;
let open: RunningApp;

beforeAll(async () => {
  const manifest = path.join(testDir('manifest-'), 'persisted-documents.json');
  writeFileSync(manifest, JSON.stringify({ [`sha256:${sha256(TRUSTED)}`]: TRUSTED }));
  // One database for the four: the same keys for each (a start retires the environment keys it does not name).
  const apiKeys = [TEST_KEY, PLAIN_KEY];
  [app, trusted, prod, open] = await Promise.all([
    startTestServer({ config: { apiKeys } }),
    startTestServer({ config: { apiKeys, trustedDocuments: { manifest, only: true } } }),
    startTestServer({ config: { apiKeys, introspection: false } }),
    startTestServer({ config: { apiKeys, auth: false } }),
  ]);
});
afterAll(() => Promise.all([app, trusted, prod, open].map((a) => a?.close())));

/** An answer that refused: no data, the code given, the status given (none over a WebSocket). */
function expectRefused(t: Transport, a: GqlAnswer, code: string, status: number): string {
  expect(a.body.data ?? null, t.name).toBeNull();
  expect(a.body.errors?.[0]?.extensions?.code, t.name).toBe(code);
  if (a.status !== null) expect(a.status, t.name).toBe(status);
  expectClean(a);
  return a.body.errors![0]!.message;
}

/** Nothing internal in any answer: no stack frame, no SQL error, no path into node_modules. */
function expectClean(a: GqlAnswer): void {
  expect(JSON.stringify(a.body)).not.toMatch(/\bat .+\.(ts|js):\d+|SQLITE|node_modules/);
}

const rows = TRANSPORTS.map((t) => [t.name, t] as const);

describe.each(rows)('%s', (_name, t) => {
  it('answers a query with the same data as every other transport, and its cost', async () => {
    const a = await t.send(app, { query: '{ zip(zip: "90210") { city stateCode } }' });
    expect(a.body).toMatchObject({ data: { zip: { city: 'Beverly Hills', stateCode: 'CA' } } });
    expect(a.body.errors).toBeUndefined();
    expect(a.body.extensions?.cost?.requestedQueryCost).toBeGreaterThan(0);
    if (a.status !== null) expect(a.status).toBe(200);
  });

  it('answers the ZIP lookups alike: distance, bulk and reverse; an unknown code named', async () => {
    const a = await t.send(app, {
      query:
        '{ zipDistance(from: "90210", to: "10001") { distanceMiles distanceKm } zips(codes: ["05401", "00000"]) { zip } zipsNear(lat: 39.64, lng: -106.37, limit: 1) { zip } }',
    });
    expect(a.body.errors).toBeUndefined();
    expect(a.body.data).toEqual({ zipDistance: { distanceMiles: 2453.35, distanceKm: 3948.28 }, zips: [{ zip: '05401' }, null], zipsNear: [{ zip: '81657' }] });
    const unknown = await t.send(app, { query: '{ zipDistance(from: "90210", to: "99999") { distanceMiles } }' });
    expect(unknown.body.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', errors: [{ name: 'to', value: '99999' }] });
  });

  it('trusted-only: an arbitrary document is refused (PERSISTED_QUERY_ONLY); a trusted one runs', async () => {
    const refused = await t.send(trusted, { query: ARBITRARY });
    expectRefused(t, refused, 'PERSISTED_QUERY_ONLY', 400);
    expect(JSON.stringify(refused.body)).not.toContain('Beverly Hills');
    const ok = await t.send(trusted, { query: TRUSTED });
    expect(ok.body.data).toEqual({ zip: { city: 'Burlington', stateCode: 'VT' } });
  });

  if (t.params)
    it('trusted-only: a trusted document runs by its id', async () => {
      const ok = await t.send(trusted, { documentId: `sha256:${sha256(TRUSTED)}` });
      expect(ok.body.data).toEqual({ zip: { city: 'Burlington', stateCode: 'VT' } });
    });

  if (t.params)
    it('automatic persisted queries: an unknown hash is not found; sent with its text it runs and is kept; then the hash alone runs', async () => {
      const query = `query Apq { zip(zip: "81657") { city } } # ${t.name}`;
      const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(query) } };
      const miss = await t.send(app, { extensions });
      // A plain JSON client of Apollo's protocol gets the miss with 200, a GraphQL-over-HTTP one with 400.
      expect(miss.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      expect(miss.body.data ?? null).toBeNull();
      const register = await t.send(app, { query, extensions });
      expect(register.body.data).toEqual({ zip: { city: 'Vail' } });
      const hit = await t.send(app, { extensions });
      expect(hit.body.data).toEqual({ zip: { city: 'Vail' } });
    });

  it(
    t.get
      ? 'a mutation over GET is 405 METHOD_NOT_ALLOWED, whatever the client accepts'
      : 'a mutation runs (and its resolver says the key lacks the admin scope)',
    async () => {
      const a = await t.send(app, { query: 'mutation { runSync { state } }' }, { key: PLAIN_KEY });
      if (t.get) expectRefused(t, a, 'METHOD_NOT_ALLOWED', 405);
      else expect(a.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    },
  );

  it('a wrong key is refused before anything runs: 401 over HTTP, 4403 over a WebSocket', async () => {
    const a = await t.send(app, { query: ARBITRARY }, { key: 'szg_not_a_key_anybody_has' });
    if (a.status === null) expect(a.closed).toBe(4403);
    else {
      expect(a.status).toBe(401);
      expect(a.body).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    expect(JSON.stringify(a.body)).not.toContain('Beverly Hills');
  });

  it('armor limits at their documented values: depth 12, aliases 15, directives 20, tokens 2000; repeated fields 5,000 pairs', async () => {
    const nested = (rounds: number) => {
      let q = 'zip';
      for (let i = 0; i < rounds; i++) q = `state { zipcodes(limit: 1) { ${q} } }`;
      return `{ zip(zip: "90210") { ${q} } }`;
    };
    // zip, then two levels per round, then the leaf: depth 2 + 2 × rounds; 6 rounds is 14.
    expect(expectRefused(t, await t.send(app, { query: nested(6) }), 'GRAPHQL_VALIDATION_FAILED', 400)).toMatch(/depth limit of 12 exceeded/);
    // (Aliases of __typename are not counted: clients add them.)
    const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: city`).join(' ');
    expect(expectRefused(t, await t.send(app, { query: `{ zip(zip: "90210") { ${aliases} } }` }), 'GRAPHQL_VALIDATION_FAILED', 400)).toMatch(
      /Aliases limit of 15 exceeded, found 16/,
    );
    const directives = Array.from({ length: 21 }, () => '@include(if: true)').join(' ');
    expect(expectRefused(t, await t.send(app, { query: `{ __typename ${directives} }` }), 'GRAPHQL_VALIDATION_FAILED', 400)).toMatch(
      /Directives limit of 20 exceeded, found 21/,
    );
    // One field 71 times: 5,041 pairs for GraphQL to compare, over the 5,000 allowed.
    expect(expectRefused(t, await t.send(app, { query: `{ ${'__typename '.repeat(71)}}` }), 'GRAPHQL_VALIDATION_FAILED', 400)).toMatch(
      /^Too many repeated fields to check/,
    );
    // `{` `zip` … `}`: 2001 tokens.
    expect(expectRefused(t, await t.send(app, { query: `{ ${'zip '.repeat(1999)}}` }), 'GRAPHQL_PARSE_FAILED', 400)).toMatch(/Token limit of 2000 exceeded/);
  });

  it('the cost limit refuses before anything runs (QUERY_TOO_COMPLEX)', async () => {
    const a = await t.send(app, {
      query: '{ states { zipcodes(limit: 1000) { nearby(limit: 200) { details { state { zipcodes(limit: 1000) { zip } } } } } } }',
    });
    expect(expectRefused(t, a, 'QUERY_TOO_COMPLEX', 400)).toMatch(/complexity \d+ is over the limit of 250000/);
  });

  it('nothing runs uncosted: an argument out of its bounds refuses the operation; the operation named is the one costed', async () => {
    // Delivered in parts, ten times the cost: 51 × 501 + 1 units is 255,520 streamed.
    if (/SSE|multipart|WebSocket/.test(t.name)) {
      const streamed = await t.send(app, { query: '{ states @stream { zipcodes(limit: 500) { zip } } }' });
      expect(expectRefused(t, streamed, 'QUERY_TOO_COMPLEX', 400)).toBe(
        'Query complexity 255520 is over the limit of 250000; ask for smaller pages or fewer nested lists.',
      );
    }
    const outOfBounds = await t.send(app, { query: '{ zipStats { totalZips } states { zipcodes(limit: 100) { nearby(limit: 0) { zip } } } }' });
    expect(expectRefused(t, outOfBounds, 'BAD_USER_INPUT', 400)).toBe('limit must be >= 1');
    if (!t.params) return;
    const costly = 'query Costly { states { zipcodes(limit: 1000) { nearby(limit: 200) { zip } } } }';
    const named = await t.send(app, { query: `query Cheap { __typename } ${costly}`, operationName: 'Costly' });
    expect(expectRefused(t, named, 'QUERY_TOO_COMPLEX', 400)).toMatch(/complexity \d+ is over the limit of 250000/);
    // The cost memo's key is the declared variables as coerced: names spelling its separators do not pass for other numbers.
    const nested = 'query($n: Int, $m: Int) { states { zipcodes(limit: $n) { zip nearby(limit: $m) { zip } } } }';
    expect((await t.send(app, { query: nested, variables: { n: 1, m: 1, 'n=1000;m': 100 } })).body.data).toBeDefined();
    const disguised = await t.send(app, { query: nested, variables: { 'n=1;m': 1, n: 1000, m: 100 } });
    expect(expectRefused(t, disguised, 'QUERY_TOO_COMPLEX', 400)).toMatch(/complexity \d+ is over the limit of 250000/);
    // A list variable of many wrong items: the first twenty, and where GraphQL stopped.
    const wrong = await t.send(app, { query: 'query($c: [String!]!) { zips(codes: $c) { zip } }', variables: { c: Array(3000).fill(1) } });
    expect(wrong.body.errors).toHaveLength(21);
    expect(wrong.body.errors!.at(-1)!.message).toBe('Too many errors processing variables, error limit reached. Execution aborted.');
  });

  it('introspection follows the setting (off in production), and with it off no "Did you mean" hint', async () => {
    const on = await t.send(app, { query: '{ __schema { queryType { name } } }' });
    expect(on.body.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    expect(expectRefused(t, await t.send(prod, { query: '{ __schema { queryType { name } } }' }), 'GRAPHQL_VALIDATION_FAILED', 400)).toMatch(
      /introspection has been disabled/,
    );
    const hinted = await t.send(app, { query: '{ zipStat { totalZips } }' });
    expect(hinted.body.errors?.[0]?.message).toMatch(/Did you mean "zipStats"/);
    const hidden = await t.send(prod, { query: '{ zipStat { totalZips } }' });
    expect(expectRefused(t, hidden, 'GRAPHQL_VALIDATION_FAILED', 400)).toBe('Cannot query field "zipStat" on type "Query".');
  });

  it(
    t.name === 'POST application/graphql' || t.name === 'batch (JSON array)'
      ? 'a subscription needs a stream: 406 NOT_ACCEPTABLE'
      : 'a subscription: the first event, or 406 where no stream can carry it',
    async () => {
      const a = await t.send(app, { query: 'subscription { syncProgress { state } }' });
      const streams = /SSE|multipart|WebSocket/.test(t.name);
      if (streams) expect(a.body.data).toEqual({ syncProgress: { state: 'IDLE' } });
      else expectRefused(t, a, 'NOT_ACCEPTABLE', 406);
    },
  );

  if (t.get)
    it('CSRF: a GET with no header a cross-site page cannot send is refused, with AUTH=off too', async () => {
      const forged = await t.send(open, { query: '{ __typename }' }, { key: null });
      expectRefused(t, forged, 'FORBIDDEN', 403);
      const ok = await t.send(open, { query: '{ __typename }' }, { key: null, headers: { 'x-graphql-yoga-csrf': '1' } });
      expect(ok.body.data).toEqual({ __typename: 'Query' });
    });
});

describe('the REST routes run through the same pipeline', () => {
  it('as the server’s own trusted documents: they answer under trusted-only', async () => {
    const r = await getJson(trusted, '/api/zip/90210');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ zip: '90210', city: 'Beverly Hills' });
  });

  it('a wrong key is 401 there too', async () => {
    const r = await getJson(app, '/api/zip/90210', { apiKey: 'szg_not_a_key_anybody_has' });
    // The key check's refusal, as on /graphql, before anything ran: not another 401, not the answer.
    expect(expectProblem(r, 401).code).toBe('UNAUTHENTICATED');
    expect(JSON.stringify(r.body)).not.toContain('Beverly Hills');
  });
});
