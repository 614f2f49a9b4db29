import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { BadInputError, NotFoundError, type ParamProblem } from '../../src/lib/errors.js';
import { CostLimitedError } from '../../src/auth/cost-budget.js';
import { ForbiddenError } from '../../src/auth/scopes.js';
import { validate } from '../../src/validation/validate.js';
import { CityParams, NearbyParams, StateZipsParams, ZipParams } from '../../src/validation/params.js';
import {
  CompareParams,
  HistoryParams,
  InsightsParams,
  NearbyResortsParams,
  OpenNowParams,
  RankingParams,
  ResortHistoryParams,
  ResortListParams,
  ResortParams,
} from '../../src/validation/resort-params.js';
import { SyncHistoryParams } from '../../src/validation/sync-params.js';

/** The declared bounds, called directly: the values REST passes (strings) and GraphQL passes (numbers). */

function problems(run: () => unknown): ParamProblem[] {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(BadInputError);
    return (e as BadInputError).problems;
  }
  throw new Error('expected a BadInputError');
}
const bound = (schema: Parameters<typeof validate>[0], input: Record<string, unknown>) => problems(() => validate(schema, input)).map((p) => [p.name, p.bound]);

describe("a client's mistake is an answer, not a fault", () => {
  it('its error captures no stack trace (nobody reads it; capturing was a fifth of a 400), and other errors still do', () => {
    let caught: unknown;
    try {
      validate(ZipParams, { zip: 'abc' });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(BadInputError);
    const clientErrors = [
      caught as Error,
      new NotFoundError('ZIP code', 'zip', '00000'),
      new ForbiddenError('admin', 'Sync'),
      new CostLimitedError(10, 5, 60, 30, 0),
    ];
    for (const e of clientErrors) expect(e.stack, e.constructor.name).not.toMatch(/\n\s+at /);
    // Only while they are built: the process's own limit is back, and a fault keeps its stack.
    expect(Error.stackTraceLimit).toBeGreaterThan(0);
    expect(new Error('fault').stack).toMatch(/\n\s+at /);
  });
});

describe('ZIP parameters', () => {
  it('a ZIP is exactly five digits', () => {
    expect(validate(ZipParams, { zip: '02134' })).toEqual({ zip: '02134' });
    for (const zip of ['2134', '021345', '0213a', ' 02134', '']) expect(bound(ZipParams, { zip })).toEqual([['zip', 'exactly 5 digits']]);
    expect(bound(ZipParams, {})).toEqual([['zip', 'given (it is required)']]);
  });

  it('nearby: radius over 0 up to 200 (default 25), limit 1 to 200 (default 50), strings or numbers', () => {
    expect(validate(NearbyParams, { zip: '10001' })).toEqual({ zip: '10001', radiusMiles: 25, limit: 50 });
    expect(validate(NearbyParams, { zip: '10001', radiusMiles: '200', limit: '1' })).toEqual({ zip: '10001', radiusMiles: 200, limit: 1 });
    expect(validate(NearbyParams, { zip: '10001', radiusMiles: 0.001, limit: 200 })).toEqual({ zip: '10001', radiusMiles: 0.001, limit: 200 });
    expect(validate(NearbyParams, { zip: '10001', radiusMiles: '1e1', limit: '+7' })).toMatchObject({ radiusMiles: 10, limit: 7 });
    // The number is all there is: Number() would trim the spaces and take it.
    expect(bound(NearbyParams, { zip: '10001', radiusMiles: ' 1e1 ', limit: '7\u3000' })).toEqual([
      ['radiusMiles', 'a finite number'],
      ['limit', 'an integer'],
    ]);
    expect(bound(NearbyParams, { zip: '10001', radiusMiles: '0' })).toEqual([['radiusMiles', '> 0']]);
    expect(bound(NearbyParams, { zip: '10001', radiusMiles: '200.01' })).toEqual([['radiusMiles', '<= 200']]);
    expect(bound(NearbyParams, { zip: '10001', radiusMiles: 'far' })).toEqual([['radiusMiles', 'a finite number']]);
    expect(bound(NearbyParams, { zip: '10001', radiusMiles: '0x10' })).toEqual([['radiusMiles', 'a finite number']]);
    expect(bound(NearbyParams, { zip: '10001', radiusMiles: ['1', '2'] })).toEqual([['radiusMiles', 'a single number']]);
    expect(bound(NearbyParams, { zip: '10001', limit: '0' })).toEqual([['limit', '>= 1']]);
    expect(bound(NearbyParams, { zip: '10001', limit: '201' })).toEqual([['limit', '<= 200']]);
    expect(bound(NearbyParams, { zip: '10001', limit: '2.5' })).toEqual([['limit', 'an integer']]);
    expect(bound(NearbyParams, { zip: '10001', limit: ['1'] })).toEqual([['limit', 'a single integer']]);
  });

  it('every problem names the parameter, the value and the bound', () => {
    expect(problems(() => validate(NearbyParams, { zip: 'x', limit: '0' }))).toEqual([
      { name: 'zip', value: 'x', bound: 'exactly 5 digits', message: 'zip must be exactly 5 digits' },
      { name: 'limit', value: '0', bound: '>= 1', message: 'limit must be >= 1' },
    ]);
  });

  it('state paging and codes', () => {
    expect(validate(StateZipsParams, { state: 'ca' })).toEqual({ state: 'CA', limit: 100, offset: 0 });
    expect(validate(StateZipsParams, { state: 'CA', limit: '1000', offset: '5' })).toEqual({ state: 'CA', limit: 1000, offset: 5 });
    expect(bound(StateZipsParams, { state: 'CAL' })).toEqual([['state', 'a 2-letter state code']]);
    expect(bound(StateZipsParams, { state: 'C1' })).toEqual([['state', 'a 2-letter state code']]);
    expect(bound(StateZipsParams, { state: 'CA', limit: '1001' })).toEqual([['limit', '<= 1000']]);
    expect(bound(StateZipsParams, { state: 'CA', offset: '-1' })).toEqual([['offset', '>= 0']]);
  });

  it('city: trimmed, non-empty, at most 100 characters', () => {
    expect(validate(CityParams, { city: '  Boston ', state: 'ma' })).toEqual({ city: 'Boston', state: 'MA' });
    expect(validate(CityParams, { city: 'x'.repeat(100) }).city).toHaveLength(100);
    expect(bound(CityParams, { city: '   ' })).toEqual([['city', 'non-empty']]);
    expect(bound(CityParams, { city: 'x'.repeat(101) })).toEqual([['city', 'at most 100 characters']]);
  });

  it("parsing what a REST shim parsed gives the same values (its operation's fields parse them again)", () => {
    const cases: [z.ZodType, Record<string, unknown>][] = [
      [ZipParams, { zip: '90210' }],
      [NearbyParams, { zip: '10001', radiusMiles: '2.5', limit: '7' }],
      [StateZipsParams, { state: 'vt', limit: '20', offset: '40' }],
      [CityParams, { city: '  St. Louis ', state: 'mo' }],
      [ResortListParams, { q: ' alta ', country: 'us', continent: 'north-america', limit: '5', units: 'imperial' }],
      [ResortHistoryParams, { id: 'Vail', days: '7', years: '2', radiusKm: '5', units: 'metric' }],
    ];
    for (const [schema, raw] of cases) {
      const once = validate(schema, raw);
      expect(validate(schema, once as Record<string, unknown>)).toEqual(once);
    }
    expect(() => validate(ZipParams, { zip: 'nope' })).toThrow(BadInputError);
  });
});

describe('resort parameters', () => {
  it('ids are slugs, lowercased; units metric or imperial in lower or upper case (what /openapi.json lists), metric by default', () => {
    expect(validate(ResortParams, { id: 'Vail' })).toEqual({ id: 'vail', units: 'METRIC' });
    expect(validate(ResortParams, { id: 'a', units: 'imperial' })).toEqual({ id: 'a', units: 'IMPERIAL' });
    expect(validate(ResortParams, { id: 'a', units: 'IMPERIAL' })).toEqual({ id: 'a', units: 'IMPERIAL' });
    expect(validate(ResortParams, { id: 'a', units: 'metric' })).toEqual({ id: 'a', units: 'METRIC' });
    expect(bound(ResortParams, { id: 'vail', units: 'Imperial' })).toEqual([['units', 'metric or imperial (or METRIC, IMPERIAL)']]);
    expect(validate(ResortParams, { id: 'x'.repeat(80) }).id).toHaveLength(80);
    for (const id of ['-vail', 'x'.repeat(81), 'va il', 'välj', '']) {
      expect(bound(ResortParams, { id })).toEqual([['id', 'a resort id (letters, digits and hyphens, at most 80)']]);
    }
    expect(bound(ResortParams, { id: 'vail', units: 'kelvin' })).toEqual([['units', 'metric or imperial (or METRIC, IMPERIAL)']]);
  });

  it('list filters and paging', () => {
    expect(validate(ResortListParams, {})).toEqual({ limit: 20, offset: 0, units: 'METRIC' });
    expect(validate(ResortListParams, { q: ' alta ', country: 'us', region: 'UT', continent: 'north-america' })).toMatchObject({
      q: 'alta',
      country: 'US',
      region: 'UT',
      continent: 'North America',
    });
    expect(validate(ResortListParams, { continent: ' NORTH_AMERICA ' }).continent).toBe('North America');
    // A run of hyphens or underscores is one space.
    expect(validate(ResortListParams, { continent: 'north-_-america' }).continent).toBe('North America');
    expect(bound(ResortListParams, { continent: 'Atlantis' })[0]![1]).toMatch(/^one of Africa, .*Oceania/);
    expect(bound(ResortListParams, { country: 'USA' })).toEqual([['country', 'a 2-letter ISO 3166-1 country code']]);
    expect(bound(ResortListParams, { q: 'x'.repeat(101) })).toEqual([['q', 'at most 100 characters']]);
    expect(bound(ResortListParams, { region: '' })).toEqual([['region', 'non-empty']]);
    expect(bound(ResortListParams, { limit: '201' })).toEqual([['limit', '<= 200']]);
  });

  it('rankings, open-now, insights, compare and nearby bounds', () => {
    expect(validate(RankingParams, {})).toEqual({ limit: 10, units: 'METRIC' });
    expect(bound(RankingParams, { limit: '51' })).toEqual([['limit', '<= 50']]);
    expect(validate(OpenNowParams, {})).toEqual({ minOpenTrailsPct: 50, units: 'METRIC' });
    expect(validate(OpenNowParams, { minOpenTrailsPct: '0' }).minOpenTrailsPct).toBe(0);
    expect(bound(OpenNowParams, { minOpenTrailsPct: '100.5' })).toEqual([['minOpenTrailsPct', '<= 100']]);
    expect(validate(InsightsParams, {})).toEqual({ days: 7, units: 'METRIC' });
    expect(bound(InsightsParams, { days: '61' })).toEqual([['days', '<= 60']]);
    expect(bound(InsightsParams, { days: '0' })).toEqual([['days', '>= 1']]);
    expect(bound(CompareParams, { id: 'vail' })).toEqual([['with', 'given (it is required)']]);
    expect(validate(NearbyResortsParams, {})).toEqual({ radiusMiles: 150, limit: 10 });
    expect(bound(NearbyResortsParams, { radiusMiles: '501' })).toEqual([['radiusMiles', '<= 500']]);
    expect(bound(NearbyResortsParams, { limit: '51' })).toEqual([['limit', '<= 50']]);
  });

  it('history: days 7–90, years 1–10, radius 1–40 km', () => {
    expect(validate(HistoryParams, {})).toEqual({ days: 30, years: 5, radiusKm: 12, units: 'METRIC' });
    expect(validate(HistoryParams, { days: '7', years: '10', radiusKm: '40' })).toMatchObject({ days: 7, years: 10, radiusKm: 40 });
    expect(bound(HistoryParams, { days: '6', years: '11', radiusKm: '0.9' })).toEqual([
      ['days', '>= 7'],
      ['years', '<= 10'],
      ['radiusKm', '>= 1'],
    ]);
    expect(bound(HistoryParams, { days: '91', years: '0', radiusKm: '40.1' })).toEqual([
      ['days', '<= 90'],
      ['years', '>= 1'],
      ['radiusKm', '<= 40'],
    ]);
  });

  it('sync history limit 1–100', () => {
    expect(validate(SyncHistoryParams, {})).toEqual({ limit: 20 });
    expect(bound(SyncHistoryParams, { limit: '101' })).toEqual([['limit', '<= 100']]);
  });
});
