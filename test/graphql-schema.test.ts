import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClientSchema, getIntrospectionQuery, printSchema, type IntrospectionQuery } from 'graphql';
import type { RunningApp } from '../src/app/start.js';
import { clockAt, startTestServer, TEST_KEY } from './helpers/server.js';

/** The schema as clients see it over introspection, and errors that null only their own field. */

let app: RunningApp;
beforeAll(async () => {
  app = await startTestServer({ now: clockAt('2027-02-01T08:30:00Z') });
});
afterAll(async () => {
  await app?.close();
});

async function post(query: string): Promise<{ data?: any; errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[] }> {
  const r = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY },
    body: JSON.stringify({ query }),
  });
  return r.json();
}

describe('the schema over introspection', () => {
  let sdl: string;
  beforeAll(async () => {
    const r = await post(getIntrospectionQuery());
    sdl = printSchema(buildClientSchema(r.data as IntrospectionQuery));
  });

  it('declares argument defaults, so clients see them', () => {
    expect(sdl).toMatch(/nearbyZips\(\s*"""[\s\S]*?"""\s*zip: String!\s*"""[\s\S]*?"""\s*radiusMiles: Float = 25\s*"""[\s\S]*?"""\s*limit: Int = 50/);
    expect(sdl).toMatch(/history\(\s*"""[\s\S]*?"""\s*days: Int = 30\s*"""[\s\S]*?"""\s*years: Int = 5\s*"""[\s\S]*?"""\s*radiusKm: Float = 12/);
    expect(sdl).toMatch(/units: Units = METRIC/);
  });

  it('lists enum values in their natural order', () => {
    expect(sdl).toMatch(/enum Difficulty \{\s*BEGINNER\s*INTERMEDIATE\s*ADVANCED\s*EXPERT\s*\}/);
  });

  it('types dates as Date and instants as DateTime', () => {
    expect(sdl).toMatch(/^scalar Date$/m);
    expect(sdl).toMatch(/^scalar DateTime$/m);
    expect(sdl).toMatch(/lastUpdated: DateTime!/);
    expect(sdl).toMatch(/^ {2}date: Date!/m);
    expect(sdl).toMatch(/startedAt: DateTime!/);
  });

  it('serializes them as ISO 8601 strings', async () => {
    const r = await post('{ health { timestamp } zip(zip: "90210") { lastUpdated } resort(id: "vail") { conditions { date } } }');
    expect(r.errors).toBeUndefined();
    expect(r.data.health.timestamp).toBe('2027-02-01T08:30:00.000Z');
    expect(r.data.zip.lastUpdated).toBe('2026-03-11T00:00:00.000Z');
    expect(r.data.resort.conditions.date).toBe('2027-02-01');
  });
});

describe("the SDL with each field's cost (GET /schema.graphql)", () => {
  it('is served without a key, is the committed file, and shows @cost and @listSize; introspection shows the directives and @defer', async () => {
    const r = await fetch(`${app.url}/schema.graphql`);
    expect(r.status).toBe(200);
    const text = await r.text();
    const { readFileSync } = await import('node:fs');
    expect(text).toBe(readFileSync(new URL('../schema/schema.graphql', import.meta.url), 'utf8'));
    expect(text).toMatch(
      /nearbyResorts\(radiusMiles: Float = 150, limit: Int = 10\): \[NearbyResort!\] @cost\(weight: "1"\) @listSize\(assumedSize: 10, slicingArguments: \["limit"\]\)/,
    );
    const introspected = await post('{ __schema { directives { name } } }');
    expect(introspected.data.__schema.directives.map((d: { name: string }) => d.name)).toEqual(expect.arrayContaining(['defer', 'stream', 'cost', 'listSize']));
  });
});

describe('a failing field nulls only itself', () => {
  it('compareResorts with an unknown resort: null with its error; the sibling answers', async () => {
    const r = await post('{ compareResorts(id: "vail", with: "nope") { distanceKm } zip(zip: "90210") { city } }');
    expect(r.data).toEqual({ compareResorts: null, zip: { city: 'Beverly Hills' } });
    expect(r.errors).toHaveLength(1);
    expect(r.errors![0]!.path).toEqual(['compareResorts']);
    expect(r.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });

  it('an argument a cost is worked out from, out of its bounds, refuses the operation before anything runs, naming it', async () => {
    // Inside a list of 5,100 ZIPs it would otherwise be 5,100 errors, one per item.
    for (const [query, message] of [
      ['{ resort(id: "vail") { name history(days: 1) { provider } } states { stateCode } }', 'days must be >= 7'],
      ['{ zip(zip: "90210") { city nearby(limit: 100000) { zip } } zipStats { totalStates } }', 'limit must be <= 200'],
      ['{ states { zipcodes(limit: 100) { nearby(limit: 0) { zip } } } }', 'limit must be >= 1'],
    ]) {
      const r = await post(query!);
      expect(r.data ?? null).toBeNull();
      expect(r.errors!.map((e) => [e.message, e.extensions!.code])).toEqual([[message, 'BAD_USER_INPUT']]);
    }
  });
});
