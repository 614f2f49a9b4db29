import { describe, expect, it } from 'vitest';
import { cityKey, cityPrefixKeys } from '../../src/domain/city-key.js';
import { BadInputError } from '../../src/errors.js';
import { validate } from '../../src/validation/validate.js';
import { CitiesParams, ResortsNearParams, ZipCodesParams, ZipsNearParams } from '../../src/validation/lookup-params.js';

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
    expect(cityKey('St. Louis')).toBe('saint louis');
    expect(cityKey('  ST   LOUIS ')).toBe('saint louis');
    expect(cityKey('Saint-Louis')).toBe('saint louis');
    expect(cityKey('Ste. Genevieve')).toBe('sainte genevieve');
    expect(cityKey('Ft Collins')).toBe('fort collins');
    expect(cityKey('Mt. Shasta')).toBe('mount shasta');
    expect(cityKey('Pt Reyes Station')).toBe('point reyes station');
    expect(cityKey('Cañon City')).toBe('canon city');
    expect(cityKey("Coeur d'Alene")).toBe('coeur d alene');
    // Only whole words are abbreviations: Stamford stays Stamford.
    expect(cityKey('Stamford')).toBe('stamford');
    expect(cityKey('West St Paul')).toBe('west saint paul');
    expect(cityKey('...')).toBe('');
  });

  it('a prefix still being typed also matches the abbreviation itself', () => {
    expect(cityPrefixKeys('St')).toEqual(['saint', 'st']);
    expect(cityPrefixKeys('st')).toEqual(['saint', 'st']);
    expect(cityPrefixKeys('Mt')).toEqual(['mount', 'mt']);
    expect(cityPrefixKeys('West St')).toEqual(['west saint', 'west st']);
    // A finished word (followed by a space or a dot) is the abbreviation.
    expect(cityPrefixKeys('St ')).toEqual(['saint']);
    expect(cityPrefixKeys('St.')).toEqual(['saint']);
    expect(cityPrefixKeys('St. Lo')).toEqual(['saint lo']);
    expect(cityPrefixKeys('Sa')).toEqual(['sa']);
  });
});

describe('lookup parameters', () => {
  it('zips(codes): 1 to 100 codes of 5 digits', () => {
    expect(validate(ZipCodesParams, { codes: ['90210'] })).toEqual({ codes: ['90210'] });
    expect(validate(ZipCodesParams, { codes: Array(100).fill('10001') }).codes).toHaveLength(100);
    expect(bounds(ZipCodesParams, { codes: Array(101).fill('10001') })).toEqual([['codes', 'at most 100 items']]);
    expect(bounds(ZipCodesParams, { codes: [] })).toEqual([['codes', 'at least 1 item']]);
    expect(bounds(ZipCodesParams, { codes: ['10001', '1'] })).toEqual([['codes.1', 'exactly 5 digits']]);
  });

  it('positions: latitude −90–90, longitude −180–180', () => {
    expect(validate(ZipsNearParams, { lat: -90, lng: 180 })).toEqual({ lat: -90, lng: 180, radiusMiles: 25, limit: 50 });
    expect(validate(ZipsNearParams, { lat: '45.5', lng: '-122.6', radiusMiles: '200', limit: '200' })).toEqual({ lat: 45.5, lng: -122.6, radiusMiles: 200, limit: 200 });
    expect(bounds(ZipsNearParams, { lat: 90.1, lng: -180.1 })).toEqual([['lat', '<= 90'], ['lng', '>= -180']]);
    expect(bounds(ZipsNearParams, { lat: -90.1, lng: 180.1 })).toEqual([['lat', '>= -90'], ['lng', '<= 180']]);
    expect(bounds(ZipsNearParams, { lat: 0, lng: 0, radiusMiles: 0, limit: 0 })).toEqual([['radiusMiles', '> 0'], ['limit', '>= 1']]);
    expect(bounds(ZipsNearParams, {})).toEqual([['lat', 'given (it is required)'], ['lng', 'given (it is required)']]);
  });

  it('resortsNear: radius over 0 up to 800 km (100), limit 1–50 (10)', () => {
    expect(validate(ResortsNearParams, { lat: 1, lng: 2 })).toEqual({ lat: 1, lng: 2, radiusKm: 100, limit: 10 });
    expect(validate(ResortsNearParams, { lat: 1, lng: 2, radiusKm: 800, limit: 50 })).toMatchObject({ radiusKm: 800, limit: 50 });
    expect(bounds(ResortsNearParams, { lat: 1, lng: 2, radiusKm: 800.1, limit: 51 })).toEqual([['radiusKm', '<= 800'], ['limit', '<= 50']]);
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
