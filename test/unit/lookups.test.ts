import { describe, expect, it } from 'vitest';
import { cityKey, cityPrefixKeys } from '../../src/domain/city-key.js';
import type { BadInputError } from '../../src/lib/errors.js';
import { validate } from '../../src/validation/validate.js';
import { CitiesParams, ResortsNearParams, ZipCodesParams, ZipsNearParams } from '../../src/validation/lookup-params.js';
import { ConditionsChangedParams } from '../../src/validation/resort-params.js';

const bounds = (schema: Parameters<typeof validate>[0], input: Record<string, unknown>) => {
  try {
    validate(schema, input);
  } catch (e) {
    return (e as BadInputError).problems.map((p) => [p.name, p.bound]);
  }
  return [];
};

describe('city keys', () => {
  it('ignore case, accents, punctuation and repeated spaces; abbreviations are their words', () => {
    const keys: [string, string][] = [
      ['St. Louis', 'saint louis'],
      ['  ST   LOUIS ', 'saint louis'],
      ['Saint-Louis', 'saint louis'],
      ['Ste. Genevieve', 'sainte genevieve'],
      ['Ft Collins', 'fort collins'],
      ['Mt. Shasta', 'mount shasta'],
      ['Pt Reyes Station', 'point reyes station'],
      ['Cañon City', 'canon city'],
      ["Coeur d'Alene", 'coeur d alene'],
      // Only whole words are abbreviations: Stamford stays Stamford.
      ['Stamford', 'stamford'],
      ['West St Paul', 'west saint paul'],
      ['...', ''],
    ];
    for (const [city, key] of keys) expect(cityKey(city), city).toBe(key);
  });

  it('a prefix still being typed also matches the abbreviation itself', () => {
    const prefixes: [string, string[]][] = [
      ['St', ['saint', 'st']],
      ['st', ['saint', 'st']],
      ['Mt', ['mount', 'mt']],
      ['West St', ['west saint', 'west st']],
      // A finished word (followed by a space or a dot) is the abbreviation.
      ['St ', ['saint']],
      ['St.', ['saint']],
      ['St. Lo', ['saint lo']],
      ['Sa', ['sa']],
    ];
    for (const [prefix, keys] of prefixes) expect(cityPrefixKeys(prefix), prefix).toEqual(keys);
  });
});

describe('lookup parameters', () => {
  it('zips(codes): 1 to 100 codes of 5 digits', () => {
    expect(validate(ZipCodesParams, { codes: ['90210'] })).toEqual({ codes: ['90210'] });
    expect(validate(ZipCodesParams, { codes: Array(100).fill('10001') }).codes).toHaveLength(100);
    // Copies count once against the bound, and the list stays as asked.
    expect(validate(ZipCodesParams, { codes: Array(101).fill('10001') }).codes).toHaveLength(101);
    const distinct = Array.from({ length: 101 }, (_, i) => String(10000 + i));
    expect(bounds(ZipCodesParams, { codes: distinct })).toEqual([['codes', 'at most 100 distinct items']]);
    expect(bounds(ZipCodesParams, { codes: [] })).toEqual([['codes', 'at least 1 item']]);
    expect(bounds(ZipCodesParams, { codes: ['10001', '1'] })).toEqual([['codes.1', 'exactly 5 digits']]);
    // REST's form: one comma-separated string, spaces around a code and empty items dropped.
    expect(validate(ZipCodesParams, { codes: ' 90210 ,05401,,10001, ' })).toEqual({ codes: ['90210', '05401', '10001'] });
    expect(bounds(ZipCodesParams, { codes: ' , ' })).toEqual([['codes', 'at least 1 item']]);
  });

  it('conditionsChanged: each resort once, in the order first asked', () => {
    expect(validate(ConditionsChangedParams, { resortIds: ['vail', 'alta', 'vail'] }).resortIds).toEqual(['vail', 'alta']);
    expect(validate(ConditionsChangedParams, { resortIds: [...Array(50).fill('vail'), 'VAIL', 'alta'] }).resortIds).toEqual(['vail', 'alta']);
  });

  it('positions: latitude −90–90, longitude −180–180', () => {
    expect(validate(ZipsNearParams, { lat: -90, lng: 180 })).toEqual({ lat: -90, lng: 180, radiusMiles: 25, limit: 50 });
    expect(validate(ZipsNearParams, { lat: '45.5', lng: '-122.6', radiusMiles: '200', limit: '200' })).toEqual({
      lat: 45.5,
      lng: -122.6,
      radiusMiles: 200,
      limit: 200,
    });
    expect(bounds(ZipsNearParams, { lat: 90.1, lng: -180.1 })).toEqual([
      ['lat', '<= 90'],
      ['lng', '>= -180'],
    ]);
    expect(bounds(ZipsNearParams, { lat: -90.1, lng: 180.1 })).toEqual([
      ['lat', '>= -90'],
      ['lng', '<= 180'],
    ]);
    expect(bounds(ZipsNearParams, { lat: 0, lng: 0, radiusMiles: 0, limit: 0 })).toEqual([
      ['radiusMiles', '> 0'],
      ['limit', '>= 1'],
    ]);
    expect(bounds(ZipsNearParams, {})).toEqual([
      ['lat', 'given (it is required)'],
      ['lng', 'given (it is required)'],
    ]);
  });

  it('resortsNear: radius over 0 up to 800 km (100), limit 1–50 (10)', () => {
    expect(validate(ResortsNearParams, { lat: 1, lng: 2 })).toEqual({ lat: 1, lng: 2, radiusKm: 100, limit: 10 });
    expect(validate(ResortsNearParams, { lat: 1, lng: 2, radiusKm: 800, limit: 50 })).toMatchObject({ radiusKm: 800, limit: 50 });
    expect(bounds(ResortsNearParams, { lat: 1, lng: 2, radiusKm: 800.1, limit: 51 })).toEqual([
      ['radiusKm', '<= 800'],
      ['limit', '<= 50'],
    ]);
  });

  it('cities: a prefix with a letter or digit, at most 100 characters; state; limit 1–50 (10)', () => {
    expect(validate(CitiesParams, { prefix: 'St. L', state: 'mo' })).toEqual({ prefix: 'St. L', state: 'MO', limit: 10 });
    expect(validate(CitiesParams, { prefix: 'x'.repeat(100), limit: 50 }).limit).toBe(50);
    expect(bounds(CitiesParams, { prefix: ' .- ' })).toEqual([['prefix', 'a letter or digit']]);
    expect(bounds(CitiesParams, { prefix: 'x'.repeat(101) })).toEqual([['prefix', 'at most 100 characters']]);
    expect(bounds(CitiesParams, { prefix: 'a', limit: 51 })).toEqual([['limit', '<= 50']]);
    expect(bounds(CitiesParams, { prefix: 'a', limit: 0 })).toEqual([['limit', '>= 1']]);
  });
});
