import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { clockAt, getJson, startTestServer } from './helpers/server.js';

/**
 * The rankings include every resort that qualifies and nothing else: computed here from each
 * resort's own conditions (GraphQL, every resort), compared with the ranking paths.
 */

let app: RunningApp;
interface Row {
  id: string;
  name: string;
  conditions: { newSnow24h: number; newSnow72h: number; snowfallNext48h: number; status: string; openTrailsPct: number };
}
let all: Row[];

beforeAll(async () => {
  app = await startTestServer({ privateDb: true, now: clockAt('2027-01-15T12:00:00Z') });
  all = [];
  for (const offset of [0, 200]) {
    const r = await getJson(app, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `{ resorts(paging: { limit: 200, offset: ${offset} }) { resorts { id name conditions { newSnow24h newSnow72h snowfallNext48h status openTrailsPct } } } }`,
      }),
    });
    expect(r.body.errors).toBeUndefined();
    all.push(...r.body.data.resorts.resorts);
  }
  expect(all).toHaveLength(241);
});
afterAll(() => app.close());

const byName = (a: Row, b: Row) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1);

describe('rankings hold exactly the resorts that qualify', () => {
  it('top snow: snow in the last 72 h, by 24 h, then 72 h, then name', async () => {
    const expected = all
      .filter((r) => r.conditions.newSnow72h > 0)
      .sort((a, b) => b.conditions.newSnow24h - a.conditions.newSnow24h || b.conditions.newSnow72h - a.conditions.newSnow72h || byName(a, b))
      .slice(0, 50)
      .map((r) => r.id);
    expect(expected.length).toBeGreaterThan(10);
    const got = (await getJson(app, '/api/conditions/top-snow?limit=50')).body.resorts.map((e: { resort: { id: string } }) => e.resort.id);
    expect(got).toEqual(expected);
  });

  it('storm watch: 20 cm or more in the next 48 hours, most first, then name', async () => {
    const expected = all
      .filter((r) => r.conditions.snowfallNext48h >= 20)
      .sort((a, b) => b.conditions.snowfallNext48h - a.conditions.snowfallNext48h || byName(a, b))
      .slice(0, 50);
    expect(expected.length).toBeGreaterThan(0);
    expect(all.some((r) => r.conditions.snowfallNext48h > 0 && r.conditions.snowfallNext48h < 20)).toBe(true);
    const got = (await getJson(app, '/api/conditions/storm-watch?limit=50')).body.resorts as { resort: { id: string }; snowfall48h: number }[];
    expect(got.map((e) => [e.resort.id, e.snowfall48h])).toEqual(expected.map((r) => [r.id, r.conditions.snowfallNext48h]));
  });

  it('open now: open resorts at or above the share, most open first, then name', async () => {
    const expected = all
      .filter((r) => r.conditions.status === 'OPEN' && r.conditions.openTrailsPct >= 50)
      .sort((a, b) => b.conditions.openTrailsPct - a.conditions.openTrailsPct || byName(a, b))
      .map((r) => r.id);
    expect(expected.length).toBeGreaterThan(10);
    const got = (await getJson(app, '/api/conditions/open-now')).body.resorts.map((e: { resort: { id: string } }) => e.resort.id);
    expect(got).toEqual(expected);
  });
});
